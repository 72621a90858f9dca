package status

// The tests in this file pin checks that a round of mutation testing
// found held by no test: each fails when its check is dropped or weakened.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// datedLists reads the list credential's validUntil too.
type datedLists struct{}

func (datedLists) VerifyStatusList(_ context.Context, body []byte) (string, map[string]any, time.Time, error) {
	var vc struct {
		Issuer            string         `json:"issuer"`
		CredentialSubject map[string]any `json:"credentialSubject"`
		ValidUntil        time.Time      `json:"validUntil"`
	}
	err := json.Unmarshal(body, &vc)
	return vc.Issuer, vc.CredentialSubject, vc.ValidUntil, err
}

// A list credential past its validUntil says nothing (a stale list may
// miss a revocation); the index just past the list's last bit is beyond it.
func TestExpiredListAndLastIndex(t *testing.T) {
	const issuer = "did:key:issuer"
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	withUntil := func(until string) string {
		vc := listVC(issuer, "StatusList2021", "revocation", encodeList(t, nil, 131072, false))
		return strings.TrimSuffix(vc, "}") + fmt.Sprintf(`, "validUntil": %q}`, until)
	}
	lists := map[string]string{
		"/stale": withUntil("2025-05-01T00:00:00Z"),
		"/fresh": withUntil("2025-07-01T00:00:00Z"),
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if body, ok := lists[r.URL.Path]; ok {
			fmt.Fprint(w, body)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	c := New(Options{Client: srv.Client(), Now: func() time.Time { return now }}, datedLists{})
	entry := func(path, idx string) map[string]any {
		return map[string]any{"type": StatusList2021Entry, "statusPurpose": "revocation", "statusListIndex": idx, "statusListCredential": srv.URL + path}
	}
	for _, tt := range []struct {
		name, path, idx, want, detail string
	}{
		{"fresh list", "/fresh", "4", OK, ""},
		{"stale list", "/stale", "4", Unknown, "expired"},
		{"index = list length", "/fresh", "131072", Unknown, "beyond"},
		{"last index", "/fresh", "131071", OK, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(context.Background(), entry(tt.path, tt.idx), issuer)
			if r.Outcome != tt.want || !strings.Contains(r.Detail, tt.detail) {
				t.Fatalf("Check = %+v, want %s (%q)", r, tt.want, tt.detail)
			}
		})
	}
}
