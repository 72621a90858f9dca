package proofs

// The tests in this file pin checks that a round of mutation testing
// found held by no test: each fails when its check is dropped or weakened.

import (
	"context"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
	"github.com/proofgate/proofgate/internal/verify"
)

// Every failing verdict abandons the record with isVerified false, whatever
// its reason; metadata.verification says the signatures held only when
// every one the verdict names did.
func TestEveryFailedVerdictAbandons(t *testing.T) {
	for _, reason := range []string{verify.ReasonChallenge, verify.ReasonDomain, verify.ReasonHolderBinding, verify.ReasonRevoked,
		verify.ReasonStatusUnknown, verify.ReasonUntrustedIssuer, verify.ReasonExpired, verify.ReasonSignature} {
		t.Run(reason, func(t *testing.T) {
			ctx := context.Background()
			fv := &fakeVerifier{formats: allFormats, verdict: func(_ context.Context, in verify.Input) (verify.Verdict, error) {
				v := verify.Fail(in.Format, reason, "")
				v.Presentation = &verify.ProofCheck{Type: "Ed25519Signature2018", Signature: verify.OK}
				v.Credentials = []verify.Credential{{Issuer: "did:key:z6Mk", Signature: verify.Failed, Reason: reason}}
				return v, nil
			}}
			a := newVerifyingAgent(t, AgentConfig{}, fv)
			w := wallet.NewT(t, wallet.Options{})
			res, err := a.Service().Create(ctx, testOrg, peRequest())
			if err != nil {
				t.Fatal(err)
			}
			inv := w.ReadInvitation(res.InvitationURL)
			got, err := a.Receive(ctx, w.Pack(inv, w.Presentation(inv, vp(inv), wallet.PresentOptions{}), false))
			if err != nil || got.State != backend.StateAbandoned {
				t.Fatalf("Receive = %+v, %v", got, err)
			}
			a.wg.Wait()
			doc, err := a.Service().Load(ctx, res.ProofRecord.ID)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Record.IsVerified == nil || *doc.Record.IsVerified {
				t.Fatalf("isVerified %v", doc.Record.IsVerified)
			}
			if check, _ := doc.Record.Metadata[MetadataVerification].(map[string]any); check["signaturesVerified"] != false {
				t.Fatalf("metadata.verification %v", check)
			}
		})
	}
}
