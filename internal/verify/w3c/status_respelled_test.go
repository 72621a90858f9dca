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

// A revoked credential whose status entry the holder respells after
// issuance ("@type" for "type", or its list as {"id": …}: the same RDF, so
// the issuer's proof holds) is refused as malformed, also with
// status_unknown accept. It used to read as an unreadable entry, unknown,
// which that setting lets through.
func TestRespelledStatusEntry(t *testing.T) {
	issuer, holder := newParty(t), newParty(t)
	bits := make([]byte, 16384)
	bits[0] = 0x80 >> 5 // index 5 revoked
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(bits)
	_ = zw.Close()
	var listRaw []byte
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(listRaw) }))
	defer srv.Close()
	list := issuer.sign(t, map[string]any{
		"@context": []any{"https://www.w3.org/2018/credentials/v1", "https://w3id.org/vc/status-list/2021/v1"},
		"id":       srv.URL + "/lists/1", "type": []any{"VerifiableCredential", "StatusList2021Credential"},
		"issuer": issuer.did, "issuanceDate": "2024-01-01T00:00:00Z",
		"credentialSubject": map[string]any{"id": srv.URL + "/lists/1#list", "type": "StatusList2021",
			"statusPurpose": "revocation", "encodedList": base64.RawURLEncoding.EncodeToString(buf.Bytes())},
	}, ldp.SignOptions{Purpose: did.AssertionMethod})
	listRaw, _ = json.Marshal(list)
	c := acapyCredential(issuer.did, holder.did)
	c["@context"] = append(c["@context"].([]any), "https://w3id.org/vc/status-list/2021/v1")
	c["credentialStatus"] = map[string]any{
		"id": srv.URL + "/lists/1#5", "type": "StatusList2021Entry", "statusPurpose": "revocation",
		"statusListIndex": "5", "statusListCredential": srv.URL + "/lists/1",
	}
	cred := issuer.sign(t, c, ldp.SignOptions{Purpose: did.AssertionMethod})
	v := newTestVerifier(t, Options{StatusUnknown: "accept"}, Env{HTTPClient: srv.Client()})
	for _, tt := range []struct {
		name    string
		respell func(st map[string]any)
		reason  string
	}{
		{"as issued", nil, verify.ReasonRevoked},
		{"type as @type", func(st map[string]any) { st["@type"] = st["type"]; delete(st, "type") }, verify.ReasonMalformed},
		{"the list as an object", func(st map[string]any) { st["statusListCredential"] = map[string]any{"id": st["statusListCredential"]} }, verify.ReasonMalformed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cr := deepCopy(t, cred)
			if tt.respell != nil {
				tt.respell(cr["credentialStatus"].(map[string]any))
			}
			vp := holder.sign(t, acapyPresentation(cr), ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge})
			got, err := v.Verify(context.Background(), input(t, vp))
			if err != nil || got.Verified || got.Reason != tt.reason {
				raw, _ := json.Marshal(got)
				t.Fatalf("verdict %s %v, want refused: %s", raw, err, tt.reason)
			}
		})
	}
}
