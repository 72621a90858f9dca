package proofgate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/shorturl"
	"github.com/proofgate/proofgate/internal/store"
	"github.com/proofgate/proofgate/internal/testenv/storagetest"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// TestFailedCreateLeavesNoAnswerableInvitation: a create whose short URL
// cannot be stored (a later step than the agent's) is answered 503 and
// undone, and its invitation is gone at the agent, so nobody can answer
// the request: ACA-Py deletes the invitation and the request; a
// credo-controller deletes the invitation's out-of-band record (it has no
// route to delete the proof record, which stays in request-sent and
// takes no presentation, as a real Credo verifier refuses one,
// TestRealCredoDiscardedInvitation). The agents are the
// conformance-checking fakes, on a tenant for credo.
func TestFailedCreateLeavesNoAnswerableInvitation(t *testing.T) {
	credo := openapitest.NewCredo(t, openapitest.CredoOptions{Tenants: []string{"tenant-a"}})
	acapy := openapitest.NewACAPy(t, openapitest.ACAPyOptions{APIKey: "acapy-admin-key"})
	h, err := provisionJSON(t, caddyContext(t), `{
		"public_url": "https://v.example.com",
		"backends": {
			"credo": {"type": "credo", "url": "`+credo.URL+`", "token": "`+openapitest.CredoRootToken+`"},
			"acapy": {"type": "acapy", "url": "`+acapy.URL+`", "api_key": "acapy-admin-key"}
		},
		"orgs": {"org-c": {"backend": "credo", "tenant": "tenant-a"}, "org-a": {"backend": "acapy"}},
		"auth": {"providers": [{"provider": "api_key", "keys": [{"key": "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "orgs": ["*"]}]}]}
	}`)
	if err != nil {
		t.Fatal(err)
	}
	// Storing a short URL fails: after the agent's part of the create.
	h.gw.ShortURLs = shorturl.New(store.New(&storagetest.FailingStores{Storage: &certmagic.FileStorage{Path: t.TempDir()}}, "shorturls"), time.Hour)
	const body = `{"isShortenUrl":true,"proofFormats":{"indy":{"name":"age check","version":"1.0",
		"requested_attributes":{"attr1":{"name":"name","restrictions":[{"schema_id":"NcYxiDXkpYi6ov5FcYDi1e:2:gvt:1.0"}]}}}}}`
	create := func(t *testing.T, org string) {
		t.Helper()
		r := httptest.NewRequest(http.MethodPost, "/orgs/"+org+"/proofs/oob?requestType=indy", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer test")
		r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer()))
		w := httptest.NewRecorder()
		next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })
		if err := h.ServeHTTP(w, r, next); err != nil || w.Code != http.StatusServiceUnavailable {
			t.Fatalf("create: %d %s, %v; want 503", w.Code, w.Body, err)
		}
	}

	t.Run("credo", func(t *testing.T) {
		create(t, "org-c")
		if !slices.Contains(credo.Operations(), "CreateRequest") {
			t.Fatalf("the agent made no request: %v", credo.Operations())
		}
		if inv := credo.Invitations("tenant-a"); len(inv) != 0 {
			t.Errorf("the agent still holds the failed create's invitation %v", inv)
		}
		recs := credo.Records("tenant-a")
		if len(recs) != 1 {
			t.Fatalf("%d proof records at the agent, want the failed create's", len(recs))
		}
		id := recs[0]["id"].(string)
		if credo.Present("tenant-a", id, openapitest.LDPPresentation("x", "y", "z", map[string]any{})) {
			t.Error("the failed create's request could still be answered")
		}
	})
	t.Run("acapy", func(t *testing.T) {
		create(t, "org-a")
		if !slices.Contains(acapy.Operations(), openapitest.ACAPyCreateInvitation) {
			t.Fatalf("the agent made no invitation: %v", acapy.Operations())
		}
		if n := acapy.Invitations(""); n != 0 {
			t.Errorf("the agent still holds %d invitations", n)
		}
		if n := len(acapy.Records("")); n != 0 {
			t.Errorf("the agent still holds %d requests", n)
		}
	})
}
