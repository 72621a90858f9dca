package w3c

import (
	"context"
	"encoding/json"
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
	cred, srv := revokedCredential(t, issuer, holder)
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
