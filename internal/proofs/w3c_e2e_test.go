package proofs

import (
	"context"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
	"github.com/proofgate/proofgate/internal/verify/w3c"
)

// TestW3CVerifierEndToEnd: the pipeline with the real W3C verifier, fed
// by the test wallet's signed presentations over DIDComm.
func TestW3CVerifierEndToEnd(t *testing.T) {
	ctx := context.Background()
	v, err := w3c.New(w3c.Options{}, w3c.Env{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		present   func(h *wallet.Holder, inv *wallet.Invitation) any
		wantState string
		want      string // errorMessage
	}{
		{"signed ldp_vp", func(h *wallet.Holder, inv *wallet.Invitation) any {
			return signedVP(t, h, inv, wallet.PresentationOptions{}, false)
		}, backend.StatePresentationReceived, ""},
		{"signed jwt_vp", func(h *wallet.Holder, inv *wallet.Invitation) any {
			vc, err := h.JWTCredential(wallet.CredentialOptions{Subject: map[string]any{"dateOfBirth": "1990-01-01"}})
			if err != nil {
				t.Fatal(err)
			}
			vp, err := h.JWTVP(inv, wallet.PresentationOptions{WithDomain: true}, []string{"wa_driver_license"}, []string{vc})
			if err != nil {
				t.Fatal(err)
			}
			return vp
		}, backend.StatePresentationReceived, ""},
		{"tampered claim", func(h *wallet.Holder, inv *wallet.Invitation) any {
			return signedVP(t, h, inv, wallet.PresentationOptions{}, true)
		}, backend.StateAbandoned, "the presentation failed verification: signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newVerifyingAgent(t, AgentConfig{}, v)
			w := wallet.NewT(t, wallet.Options{})
			res, err := a.Service().Create(ctx, testOrg, peRequest())
			if err != nil {
				t.Fatal(err)
			}
			inv := w.ReadInvitation(res.InvitationURL)
			got, err := a.Receive(ctx, w.Present(inv, tt.present(w.Holder(), inv), false))
			if err != nil || got.State != tt.wantState {
				t.Fatalf("Receive = %+v, %v", got, err)
			}
			rec, _ := a.Service().LoadRecord(ctx, res.ProofRecord.ID)
			check, _ := rec.Metadata[MetadataVerification].(map[string]any)
			if tt.want == "" {
				if rec.IsVerified == nil || !*rec.IsVerified || check["verified"] != true || check["signaturesVerified"] != true {
					t.Fatalf("record %+v", rec)
				}
				return
			}
			if rec.IsVerified == nil || *rec.IsVerified || !strings.Contains(rec.ErrorMessage, tt.want) {
				t.Fatalf("record %+v", rec)
			}
			report := w.Next()
			if en := report.Message["description"].(map[string]any)["en"]; en != "the presentation failed verification: signature" {
				t.Fatalf("problem report says %q", en)
			}
		})
	}
}

// signedVP answers peRequest with one self-issued credential holding a
// dateOfBirth, tampered after signing when asked.
func signedVP(t *testing.T, h *wallet.Holder, inv *wallet.Invitation, o wallet.PresentationOptions, tamper bool) map[string]any {
	t.Helper()
	ctx := context.Background()
	c, err := h.Issue(ctx, wallet.CredentialOptions{Subject: map[string]any{"dateOfBirth": "1990-01-01"}})
	if err != nil {
		t.Fatal(err)
	}
	if tamper {
		c = wallet.Tamper(c, "dateOfBirth", "2015-01-01")
	}
	vp, err := h.SignedVP(ctx, inv, o, wallet.Submitted{DescriptorID: "wa_driver_license", Credential: c})
	if err != nil {
		t.Fatal(err)
	}
	return vp
}
