package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/auth/apikey"
	"github.com/proofgate/proofgate/internal/backend"
)

// failingSink refuses to stage (the webhook outbox's storage is down).
type failingSink struct{ calls int }

func (f *failingSink) Stage(context.Context, backend.StateChange) (backend.Staged, error) {
	f.calls++
	return nil, errors.New("outbox storage: disk full")
}

// TestCreateWithUnstageableEventIsUndone: a webhook event is written to
// the outbox before its change is answered. A create whose creation event
// cannot be staged is undone and answered 503; it was answered 201 with
// its record kept and the event lost for good (no later read reports a
// creation).
func TestCreateWithUnstageableEventIsUndone(t *testing.T) {
	const key = "alice-key-0123456789abcdef"
	keys := &apikey.Provider{Keys: []apikey.Key{{Key: apikey.Digest(key), Orgs: []string{benchOrg}, Label: "a"}}}
	if err := keys.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	g := idempotentGateway(t, keys, auth.DefaultAllowedRoles)
	sink := &failingSink{}
	g.Changes = sink
	r := httptest.NewRequest(http.MethodPost, "/orgs/"+benchOrg+"/proofs/oob?requestType=indy", strings.NewReader(benchIndy))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-API-Key", key)
	w := httptest.NewRecorder()
	g.SendOutOfBandRequest(w, r, benchOrg)
	if sink.calls == 0 {
		t.Fatal("no staging attempted")
	}
	if w.Code != http.StatusServiceUnavailable {
		t.Fatalf("create answered %d although its creation webhook could not be staged (want 503, the create undone): %.120s", w.Code, w.Body)
	}
}
