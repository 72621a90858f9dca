package wallet

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/w3c"
)

// signedInvitation is a DIF invitation asking for a license class.
func signedInvitation(t *testing.T) *Invitation {
	t.Helper()
	_, vdid := verifierKey(t)
	u, _ := invitationURL(t, vdid, difRequest(), false)
	inv, err := ParseInvitation(u)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// TestSignedPresentations: what the holder signs verifies with the W3C
// verifier, and each way of spoiling it fails for its own reason.
func TestSignedPresentations(t *testing.T) {
	ctx := context.Background()
	inv := signedInvitation(t)
	h, _ := NewHolder(nil)
	other, _ := NewHolder(nil)
	v, err := w3c.New(w3c.Options{}, w3c.Env{})
	if err != nil {
		t.Fatal(err)
	}
	claims := map[string]any{"licenseClass": "B", "name": "Alice"}
	issue := func(o CredentialOptions) map[string]any {
		if o.Subject == nil {
			o.Subject = claims
		}
		c, err := h.Issue(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	present := func(o PresentationOptions, c map[string]any) map[string]any {
		vp, err := h.SignedVP(ctx, inv, o, Submitted{DescriptorID: "lic", Credential: c})
		if err != nil {
			t.Fatal(err)
		}
		return vp
	}
	jwtvp := func(o PresentationOptions, co CredentialOptions) string {
		if co.Subject == nil {
			co.Subject = claims
		}
		vc, err := h.JWTCredential(co)
		if err != nil {
			t.Fatal(err)
		}
		vp, err := h.JWTVP(inv, o, []string{"lic"}, []string{vc})
		if err != nil {
			t.Fatal(err)
		}
		return vp
	}
	auto, err := h.Present(ctx, inv, map[string]any{"name": "Alice"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		pres any
		want string // verify reason; "" = verified
	}{
		{"signed", present(PresentationOptions{}, issue(CredentialOptions{})), ""},
		{"with domain", present(PresentationOptions{WithDomain: true}, issue(CredentialOptions{})), ""},
		{"auto", auto, ""},
		{"tampered claim", present(PresentationOptions{}, Tamper(issue(CredentialOptions{}), "licenseClass", "C")), verify.ReasonSignature},
		{"expired", present(PresentationOptions{}, issue(CredentialOptions{ExpirationDate: time.Now().Add(-24 * time.Hour)})), verify.ReasonExpired},
		{"wrong challenge", present(PresentationOptions{Challenge: "not-ours"}, issue(CredentialOptions{})), verify.ReasonChallenge},
		{"wrong domain", present(PresentationOptions{Domain: "evil.example"}, issue(CredentialOptions{})), verify.ReasonDomain},
		{"wrong holder", present(PresentationOptions{SignedBy: other, Holder: other.DID}, issue(CredentialOptions{})), verify.ReasonHolderBinding},
		{"unknown context", WithUnknownContext(present(PresentationOptions{}, issue(CredentialOptions{}))), verify.ReasonContext},
		{"jwt vp", jwtvp(PresentationOptions{}, CredentialOptions{}), ""},
		{"jwt vp wrong challenge", jwtvp(PresentationOptions{Challenge: "x"}, CredentialOptions{}), verify.ReasonChallenge},
		{"jwt vp expired credential", jwtvp(PresentationOptions{}, CredentialOptions{ExpirationDate: time.Now().Add(-24 * time.Hour)}), verify.ReasonExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(tt.pres)
			verdict, err := v.Verify(ctx, verify.Input{Format: FormatDIFSubmission, Request: inv.Payload, Presentation: raw, Challenge: inv.Challenge, Domain: inv.Domain})
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" && !verdict.Verified || tt.want != "" && (verdict.Verified || verdict.Reason != tt.want) {
				b, _ := json.Marshal(verdict)
				t.Fatalf("verdict %s, want %q", b, tt.want)
			}
		})
	}
}
