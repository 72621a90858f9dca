package status

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A credential whose issuer lists a supported entry (which revokes it)
// beside one of a type proofgate does not read: the revocation it can
// read must win. Unknown lets the revoked credential through under
// status_unknown accept.
func TestRevokedEntryBesideUnsupportedOne(t *testing.T) {
	const issuer = "did:key:issuer"
	body := listVC(issuer, "StatusList2021", "revocation", encodeList(t, []int{3}, 131072, false))
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
	defer srv.Close()
	c := New(Options{Client: srv.Client()}, plainLists{})
	revoked := map[string]any{"type": StatusList2021Entry, "statusPurpose": "revocation", "statusListIndex": "3", "statusListCredential": srv.URL + "/list"}
	other := map[string]any{"type": "RevocationList2020Status", "revocationListIndex": "3", "revocationListCredential": srv.URL + "/rl2020"}
	for _, order := range [][]any{{revoked, other}, {other, revoked}} {
		if r := c.Check(context.Background(), order, issuer); r.Outcome != Revoked {
			t.Errorf("entries %v: %+v, want revoked", []any{order[0].(map[string]any)["type"], order[1].(map[string]any)["type"]}, r)
		}
	}
}
