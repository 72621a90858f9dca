package handlers

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/auth/apikey"
	"github.com/proofgate/proofgate/internal/idempotency"
	"github.com/proofgate/proofgate/internal/proofs"
	"github.com/proofgate/proofgate/internal/store"
	"github.com/proofgate/proofgate/internal/validate"
)

// Idempotency-Key entries are kept per credential: two API keys that an
// operator gave one label are two callers, and a retry of one never
// answers the other with its record.
func TestIdempotencyKeysAreTheCredentials(t *testing.T) {
	const keyAlice, keyBob = "alice-key-0123456789abcdef", "bob-key-0123456789abcdefgh"
	keys := &apikey.Provider{Keys: []apikey.Key{
		{Key: apikey.Digest(keyAlice), Orgs: []string{benchOrg}, Label: "partner"},
		{Key: apikey.Digest(keyBob), Orgs: []string{benchOrg}, Label: "partner"},
	}}
	if err := keys.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	g := idempotentGateway(t, keys, auth.DefaultAllowedRoles)
	post := func(key string) (string, string) {
		r := httptest.NewRequest(http.MethodPost, "/orgs/"+benchOrg+"/proofs/oob?requestType=indy", strings.NewReader(benchIndy))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-API-Key", key)
		r.Header.Set("Idempotency-Key", "order-1")
		w := httptest.NewRecorder()
		g.SendOutOfBandRequest(w, r, benchOrg)
		var b struct {
			Data struct{ ProofRecordID string }
		}
		_ = json.Unmarshal(w.Body.Bytes(), &b)
		if w.Code != http.StatusCreated {
			t.Fatalf("create: %d %s", w.Code, w.Body)
		}
		return b.Data.ProofRecordID, w.Header().Get("Idempotent-Replayed")
	}
	alice, _ := post(keyAlice)
	bob, replayed := post(keyBob)
	if bob == alice || replayed != "" {
		t.Fatalf("the second key got the first's answer (record %s, replayed %q)", bob, replayed)
	}
	if again, replayed := post(keyAlice); again != alice || replayed != "true" {
		t.Fatalf("the first key's retry: record %s (want %s), replayed %q", again, alice, replayed)
	}
}

// nobodyProvider authenticates every request as a caller of benchOrg that
// names no one (a JWT without sub, azp or client_id).
type nobodyProvider struct{}

func (nobodyProvider) Authenticate(*http.Request) (*auth.Principal, error) {
	return &auth.Principal{Subject: "jwt:unknown", Orgs: map[string][]string{benchOrg: {"admin"}}}, nil
}

// A credential that names no caller cannot keep an Idempotency-Key: its
// entries would be every such credential's.
func TestIdempotencyKeyNeedsACaller(t *testing.T) {
	g := idempotentGateway(t, nobodyProvider{}, []string{"admin"})
	r := httptest.NewRequest(http.MethodPost, "/orgs/"+benchOrg+"/proofs/oob?requestType=indy", strings.NewReader(benchIndy))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Idempotency-Key", "order-1")
	w := httptest.NewRecorder()
	g.SendOutOfBandRequest(w, r, benchOrg)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "Idempotency-Key: the credential names no caller") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

// idempotentGateway is a gateway over a local verifier in memory that
// keeps Idempotency-Key entries, its callers authenticated by p.
func idempotentGateway(t *testing.T, p auth.Provider, roles []string) *Gateway {
	t.Helper()
	v, _ := validate.New(validate.Options{})
	svc, err := proofs.New(&memStorage{}, proofs.Config{
		PublicURL: "https://verifier.example.com", Endpoint: "https://verifier.example.com/didcomm", Label: "v", Now: time.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &Gateway{
		Logger: zap.NewNop(), Auth: auth.Chain{p}, AllowedRoles: roles,
		Validator: v, Backends: oneBackend{localBackend{svc}}, MaxBodySize: 1 << 20,
		Idempotency: idempotency.New(store.New(&certmagic.FileStorage{Path: t.TempDir()}, idempotency.Namespace), time.Hour),
	}
}
