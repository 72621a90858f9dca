package w3c

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/ldp"
)

// A StatusList2021 list credential signed by the issuer, served over TLS;
// credentials point into it.
func TestStatusLists(t *testing.T) {
	issuer, holder, stranger := newParty(t), newParty(t), newParty(t)
	bits := make([]byte, 16384)
	bits[0] = 0x80 >> 5 // index 5 revoked
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(bits)
	zw.Close()
	listFor := func(signer party, issuerDID string) []byte {
		list := map[string]any{
			"@context":     []any{"https://www.w3.org/2018/credentials/v1", "https://w3id.org/vc/status-list/2021/v1"},
			"id":           "https://status.example/lists/1",
			"type":         []any{"VerifiableCredential", "StatusList2021Credential"},
			"issuer":       issuerDID,
			"issuanceDate": "2024-01-01T00:00:00Z",
			"credentialSubject": map[string]any{
				"id": "https://status.example/lists/1#list", "type": "StatusList2021",
				"statusPurpose": "revocation", "encodedList": base64.RawURLEncoding.EncodeToString(buf.Bytes()),
			},
		}
		raw, _ := json.Marshal(signer.sign(t, list, ldp.SignOptions{Purpose: did.AssertionMethod}))
		return raw
	}
	good, forged := listFor(issuer, issuer.did), listFor(stranger, issuer.did)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/lists/1":
			w.Write(good)
		case "/forged":
			w.Write(forged)
		default:
			http.Error(w, "down", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	present := func(path, index string) map[string]any {
		c := acapyCredential(issuer.did, holder.did)
		c["@context"] = append(c["@context"].([]any), "https://w3id.org/vc/status-list/2021/v1")
		c["credentialStatus"] = map[string]any{
			"id": srv.URL + path + "#" + index, "type": "StatusList2021Entry", "statusPurpose": "revocation",
			"statusListIndex": index, "statusListCredential": srv.URL + path,
		}
		cred := issuer.sign(t, c, ldp.SignOptions{Purpose: did.AssertionMethod})
		return holder.sign(t, acapyPresentation(cred), ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge})
	}
	for _, tt := range []struct {
		name, path, index string
		opts              Options
		reason, status    string
	}{
		{"not revoked", "/lists/1", "6", Options{}, "", verify.OK},
		{"revoked", "/lists/1", "5", Options{}, verify.ReasonRevoked, verify.Revoked},
		{"list down", "/down", "6", Options{}, verify.ReasonStatusUnknown, verify.Unknown},
		{"list down, status_unknown accept", "/down", "6", Options{StatusUnknown: "accept"}, "", verify.Unknown},
		{"list signed by another key", "/forged", "6", Options{}, verify.ReasonStatusUnknown, verify.Unknown},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := newTestVerifier(t, tt.opts, Env{HTTPClient: srv.Client()})
			got, _ := v.Verify(context.Background(), input(t, present(tt.path, tt.index)))
			if got.Reason != tt.reason || got.Verified != (tt.reason == "") || got.Credentials[0].Status != tt.status {
				raw, _ := json.Marshal(got)
				t.Fatalf("verdict %s; want reason %q status %q", raw, tt.reason, tt.status)
			}
		})
	}
}
