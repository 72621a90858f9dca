package proofs

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
	"github.com/proofgate/proofgate/internal/verify/w3c"
)

// runPE sends vp (built by present) to a verifying agent whose request is
// peRequest (field $.credentialSubject.dateOfBirth, no filter) and returns
// the record.
func runPE(t *testing.T, o w3c.Options, present func(w *wallet.T, inv *wallet.Invitation) any) backend.ProofRecord {
	t.Helper()
	ctx := context.Background()
	v, err := w3c.New(o, w3c.Env{})
	if err != nil {
		t.Fatal(err)
	}
	a := newVerifyingAgent(t, AgentConfig{}, v)
	w := wallet.NewT(t, wallet.Options{})
	res, err := a.Service().Create(ctx, testOrg, peRequest())
	if err != nil {
		t.Fatal(err)
	}
	inv := w.ReadInvitation(res.InvitationURL)
	if _, err := a.Receive(ctx, w.Present(inv, present(w, inv), false)); err != nil {
		t.Fatal(err)
	}
	rec, _ := a.Service().LoadRecord(ctx, res.ProofRecord.ID)
	return rec
}

// A credential signed by a trusted issuer without dateOfBirth, to which
// the holder adds "dateOfBirth": null (or [], or {"@value": null}) after
// issuance: JSON-LD drops such a member (it makes no statement), so the
// issuer's RDF proof still verifies; it must not answer the required
// field.
func TestUnsignedEmptyMemberDoesNotMeetARequiredField(t *testing.T) {
	issuer, _ := wallet.NewHolder(nil)
	for _, injected := range []any{nil, []any{}, []any{nil, []any{}}, map[string]any{"@value": nil}, map[string]any{"@set": []any{}}} {
		name, _ := json.Marshal(injected)
		t.Run(string(name), func(t *testing.T) {
			rec := runPE(t, w3c.Options{TrustedIssuers: []string{issuer.DID}}, func(w *wallet.T, inv *wallet.Invitation) any {
				h := w.Holder()
				c, err := issuer.Issue(context.Background(), wallet.CredentialOptions{SubjectID: h.DID, Subject: map[string]any{"givenName": "Alice"}})
				if err != nil {
					t.Fatal(err)
				}
				c["credentialSubject"].(map[string]any)["dateOfBirth"] = injected // after signing
				vp, err := h.SignedVP(context.Background(), inv, wallet.PresentationOptions{}, wallet.Submitted{DescriptorID: "wa_driver_license", Credential: c})
				if err != nil {
					t.Fatal(err)
				}
				return vp
			})
			if rec.IsVerified != nil && *rec.IsVerified {
				t.Fatalf("a credential without dateOfBirth answered the required field $.credentialSubject.dateOfBirth: state %s, isVerified true, verification %v", rec.State, rec.Metadata[MetadataVerification])
			}
			if !strings.Contains(rec.ErrorMessage, "has no $.credentialSubject.dateOfBirth") {
				t.Fatalf("errorMessage %q, want the missing field named", rec.ErrorMessage)
			}
		})
	}
}
