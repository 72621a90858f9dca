package proofgate

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	_ "github.com/caddyserver/caddy/v2/modules/filestorage"

	"github.com/proofgate/proofgate/internal/backend"
)

// caddyContext returns a Caddy context with file storage in a temp dir, as a
// running config has, and cancels it (cleaning up every module) at the end.
func caddyContext(t *testing.T) caddy.Context {
	t.Helper()
	st, _ := json.Marshal(map[string]any{"module": "file_system", "root": t.TempDir()})
	cfg := &caddy.Config{StorageRaw: st, Admin: &caddy.AdminConfig{Disabled: true}}
	ctx, err := caddy.ProvisionContext(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Context.Done() })
	return ctx
}

// provisionJSON provisions and validates a handler from its JSON config, as
// Caddy's LoadModule does.
func provisionJSON(t *testing.T, ctx caddy.Context, js string) (*Handler, error) {
	t.Helper()
	h := new(Handler)
	if err := json.Unmarshal([]byte(js), h); err != nil {
		t.Fatal(err)
	}
	if err := h.Provision(ctx); err != nil {
		_ = h.Cleanup()
		return nil, err
	}
	if err := h.Validate(); err != nil {
		_ = h.Cleanup()
		return nil, err
	}
	t.Cleanup(func() { _ = h.Cleanup() })
	return h, nil
}

// TestShortURLBaseIsStableAcrossLoads: two local backends, no
// default_backend and no handler public_url: short URLs are made and
// served under the first local backend's public URL, by name, the same at
// every load (it was Go's map order: short URLs handed out under one load
// did not match the next one's prefix).
func TestShortURLBaseIsStableAcrossLoads(t *testing.T) {
	const cfg = `{
		"backends": {
			"a": {"type": "local", "public_url": "https://a.example.com/va"},
			"b": {"type": "local", "public_url": "https://b.example.com/vb"}
		},
		"orgs": {"org-a": {"backend": "a"}, "org-b": {"backend": "b"}},
		"auth": {"providers": [{"provider": "api_key", "keys": [{"key": "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "orgs": ["*"]}]}]}
	}`
	seen := map[string]int{}
	for i := 0; i < 12; i++ {
		ctx := caddyContext(t)
		h, err := provisionJSON(t, ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		seen[h.gw.ShortURLBase]++
	}
	if len(seen) > 1 {
		t.Fatalf("the short URL base differs between loads of one config: %v", seen)
	}
}

// TestInvitationPageOfEveryLocalVerifier: two local verifiers of one
// handler (two hosts of one site, each org on its own verifier with its
// own storage), both at path "/": the long invitation URL of either opens
// its page at every load (only the verifier Go's map order put first was
// asked; the other's invitations were 404 at half the loads).
func TestInvitationPageOfEveryLocalVerifier(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	cfg := `{
		"backends": {
			"a": {"type": "local", "public_url": "https://a.example.com/", "storage": {"module": "file_system", "root": "` + dirA + `"}},
			"b": {"type": "local", "public_url": "https://b.example.com/", "didcomm_endpoint": "https://b.example.com/didcomm-b", "storage": {"module": "file_system", "root": "` + dirB + `"}}
		},
		"orgs": {"org-a": {"backend": "a"}, "org-b": {"backend": "b"}},
		"auth": {"providers": [{"provider": "api_key", "keys": [{"key": "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "orgs": ["*"]}]}]}
	}`
	req := backend.OOBRequest{
		RequestType: backend.RequestPresentationExchange, ProtocolVersion: backend.ProtocolV2, ReuseConnection: true,
		PresentationDefinition: json.RawMessage(`{"id":"5591656f-5b5d-40f8-ab5c-9041c8e3a6a0","input_descriptors":[{"id":"license","constraints":{"fields":[{"path":["$.credentialSubject.licenseNumber"]}]}}]}`),
	}
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) error { w.WriteHeader(599); return nil })
	statuses := map[int]int{}
	for i := 0; i < 8; i++ {
		ctx := caddyContext(t)
		h, err := provisionJSON(t, ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, org, _ := h.gw.Backends.Route("org-b")
		res, err := b.SendOutOfBandRequest(context.Background(), org, req)
		if err != nil {
			t.Fatal(err)
		}
		r := httptest.NewRequest(http.MethodGet, res.InvitationURL, nil)
		r.Header.Set("Accept", "text/html")
		w := httptest.NewRecorder()
		_ = h.ServeHTTP(w, r, next)
		statuses[w.Code]++
		// release the verifiers' journals before the next load
		for _, bk := range h.gw.Backends.All() {
			if c, ok := bk.(interface{ Cleanup() error }); ok {
				_ = c.Cleanup()
			}
		}
	}
	if statuses[http.StatusOK] != 8 {
		t.Fatalf("invitation page of verifier b's own invitation, over 8 loads of one config: statuses %v (want 200 every time)", statuses)
	}
}

// TestDIDCommEndpointUnderAPIRoutesRefused: a local verifier whose
// public_url sits under /proofs or /orgs would advertise a DIDComm
// endpoint and short URLs the handler never serves (match gives those
// prefixes to the API routes first): refused at load, naming why.
func TestDIDCommEndpointUnderAPIRoutesRefused(t *testing.T) {
	for _, pub := range []string{"https://v.example.com/proofs", "https://v.example.com/orgs", "https://v.example.com/proofs/x"} {
		ctx := caddyContext(t)
		_, err := provisionJSON(t, ctx, `{
			"backends": {"main": {"type": "local", "public_url": "`+pub+`"}},
			"auth": {"providers": [{"provider": "api_key", "keys": [{"key": "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "orgs": ["*"]}]}]}
		}`)
		if err == nil || !strings.Contains(err.Error(), "under /orgs/ or /proofs/") {
			t.Errorf("public_url %s: %v, want the load refused naming the API routes", pub, err)
		}
	}
	// A public URL beside them, and one whose path only starts alike, load.
	for _, pub := range []string{"https://v.example.com/", "https://v.example.com/proofsvc"} {
		ctx := caddyContext(t)
		h, err := provisionJSON(t, ctx, `{
			"backends": {"main": {"type": "local", "public_url": "`+pub+`"}},
			"auth": {"providers": [{"provider": "api_key", "keys": [{"key": "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "orgs": ["*"]}]}]}
		}`)
		if err != nil {
			t.Fatalf("public_url %s: %v", pub, err)
		}
		for p := range h.didcomm {
			if rt, _ := h.match(p); rt != routeDIDComm {
				t.Errorf("public_url %s: the DIDComm endpoint %s is matched as route %v", pub, p, rt)
			}
		}
		if rt, _ := h.match(h.shortPrefix + "AbCdEf12"); rt != routeShortURL {
			t.Errorf("public_url %s: short URLs %sAbCdEf12 are matched as route %v", pub, h.shortPrefix, rt)
		}
	}
}
