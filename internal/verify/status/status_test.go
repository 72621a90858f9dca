package status

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// plainLists "verifies" a list credential by reading it: the real proof
// check is the W3C verifier's, tested there; here the list logic is.
type plainLists struct{}

func (plainLists) VerifyStatusList(_ context.Context, body []byte) (string, map[string]any, time.Time, error) {
	var vc struct {
		Issuer            string         `json:"issuer"`
		CredentialSubject map[string]any `json:"credentialSubject"`
		Bad               bool           `json:"bad"`
	}
	if err := json.Unmarshal(body, &vc); err != nil || vc.Bad {
		return "", nil, time.Time{}, errors.New("signature does not verify")
	}
	return vc.Issuer, vc.CredentialSubject, time.Time{}, nil
}

func encodeList(t *testing.T, set []int, n int, multibase bool) string {
	t.Helper()
	bits := make([]byte, n/8)
	for _, i := range set {
		bits[i/8] |= 0x80 >> (i % 8)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(bits)
	zw.Close()
	s := base64.RawURLEncoding.EncodeToString(buf.Bytes())
	if multibase {
		return "u" + s
	}
	return s
}

func listVC(issuer, typ, purpose, enc string) string {
	return fmt.Sprintf(`{"issuer": %q, "credentialSubject": {"type": %q, "statusPurpose": %q, "encodedList": %q}}`, issuer, typ, purpose, enc)
}

func TestCheck(t *testing.T) {
	const issuer = "did:key:issuer"
	var hits atomic.Int32
	lists := map[string]string{
		"/2021":      listVC(issuer, "StatusList2021", "revocation", encodeList(t, []int{3, 94567}, 131072, false)),
		"/bitstring": listVC(issuer, "BitstringStatusList", "revocation", encodeList(t, []int{7}, 131072, true)),
		"/suspend":   listVC(issuer, "BitstringStatusList", "suspension", encodeList(t, []int{7}, 131072, true)),
		"/other":     listVC("did:key:someone-else", "StatusList2021", "revocation", encodeList(t, nil, 131072, false)),
		"/forged":    `{"bad": true}`,
		"/bomb":      listVC(issuer, "StatusList2021", "revocation", encodeList(t, nil, 1<<26, false)),
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if body, ok := lists[r.URL.Path]; ok {
			fmt.Fprint(w, body)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	c := New(Options{Client: srv.Client()}, plainLists{})
	entry := func(typ, path string, idx any, purpose string) map[string]any {
		return map[string]any{"type": typ, "statusPurpose": purpose, "statusListIndex": idx, "statusListCredential": srv.URL + path}
	}
	tests := []struct {
		name   string
		status any
		want   string
		detail string
	}{
		{"2021 clear", entry(StatusList2021Entry, "/2021", "4", "revocation"), OK, ""},
		{"2021 set", entry(StatusList2021Entry, "/2021", "94567", "revocation"), Revoked, "revocation"},
		{"2021 numeric index", entry(StatusList2021Entry, "/2021", float64(3), "revocation"), Revoked, ""},
		{"bitstring set", entry(BitstringStatusListEntry, "/bitstring", "7", "revocation"), Revoked, ""},
		{"bitstring clear", entry(BitstringStatusListEntry, "/bitstring", "8", "revocation"), OK, ""},
		{"suspended", entry(BitstringStatusListEntry, "/suspend", "7", "suspension"), Revoked, "suspension"},
		{"purpose mismatch", entry(BitstringStatusListEntry, "/suspend", "7", "revocation"), Unknown, "not for"},
		{"array, one revoked", []any{entry(StatusList2021Entry, "/2021", "4", "revocation"), entry(BitstringStatusListEntry, "/bitstring", "7", "revocation")}, Revoked, ""},
		{"not found", entry(StatusList2021Entry, "/missing", "1", "revocation"), Unknown, "HTTP 404"},
		{"other issuer", entry(StatusList2021Entry, "/other", "1", "revocation"), Unknown, "another issuer"},
		{"forged list", entry(StatusList2021Entry, "/forged", "1", "revocation"), Unknown, "does not verify"},
		{"decompression bomb", entry(StatusList2021Entry, "/bomb", "1", "revocation"), Unknown, "longer than"},
		{"index beyond", entry(StatusList2021Entry, "/2021", "200000", "revocation"), Unknown, "beyond"},
		{"negative index", entry(StatusList2021Entry, "/2021", "-1", "revocation"), Malformed, "statusListIndex"},
		{"unknown type", map[string]any{"type": "RevocationList2020Status"}, Unknown, "not supported"},
		// An RDF proof lets a holder respell a signed entry; unreadable is
		// malformed, never unknown (which status_unknown accept may pass).
		{"type as @type", map[string]any{"@type": StatusList2021Entry, "statusPurpose": "revocation", "statusListIndex": "1", "statusListCredential": srv.URL + "/2021"}, Malformed, "without a string type"},
		{"list as an object", map[string]any{"type": StatusList2021Entry, "statusPurpose": "revocation", "statusListIndex": "1", "statusListCredential": map[string]any{"id": srv.URL + "/2021"}}, Malformed, "required"},
		{"http URL", map[string]any{"type": StatusList2021Entry, "statusPurpose": "revocation", "statusListIndex": "1", "statusListCredential": "http://example.com/list"}, Unknown, "https"},
		{"multi-bit", map[string]any{"type": BitstringStatusListEntry, "statusPurpose": "message", "statusListIndex": "1", "statusSize": "2", "statusListCredential": srv.URL + "/bitstring"}, Unknown, "more than one bit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(context.Background(), tt.status, issuer)
			if r.Outcome != tt.want || !strings.Contains(r.Detail, tt.detail) {
				t.Fatalf("Check = %+v, want %s (%q)", r, tt.want, tt.detail)
			}
		})
	}
	before := hits.Load()
	c.Check(context.Background(), entry(StatusList2021Entry, "/2021", "4", "revocation"), issuer)
	if hits.Load() != before {
		t.Fatal("a cached list was fetched again")
	}
	// Through the real guard, a loopback list is unreachable → unknown.
	guarded := New(Options{}, plainLists{})
	if r := guarded.Check(context.Background(), entry(StatusList2021Entry, "/2021", "4", "revocation"), issuer); r.Outcome != Unknown {
		t.Fatalf("guarded: %+v", r)
	}
}
