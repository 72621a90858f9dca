package proofs

// The tests in this file pin checks that a round of mutation testing
// found held by no test: each fails when its check is dropped or weakened.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
	"github.com/proofgate/proofgate/internal/verify"
)

// submissionVP is an ldp presentation of one credential whose submission maps the
// given descriptor ids onto it.
func submissionVP(t *testing.T, definitionID string, ids []string, proof any) []byte {
	t.Helper()
	var dm []any
	for _, id := range ids {
		dm = append(dm, map[string]any{"id": id, "format": "ldp_vc", "path": "$.verifiableCredential[0]"})
	}
	vp, err := json.Marshal(map[string]any{
		"presentation_submission": map[string]any{"definition_id": definitionID, "descriptor_map": dm},
		"verifiableCredential":    []any{map[string]any{"credentialSubject": map[string]any{}}},
		"proof":                   proof,
	})
	if err != nil {
		t.Fatal(err)
	}
	return vp
}

func TestSubmissionAnswersTheWholeRequest(t *testing.T) {
	def := []byte(`{"presentation_definition":{"id":"d","input_descriptors":[{"id":"a"},{"id":"b"}]}}`)
	ours := map[string]any{"challenge": "c"}
	for _, tt := range []struct {
		name string
		vp   []byte
		want string // "" = no problem
	}{
		{"both", submissionVP(t, "d", []string{"a", "b"}, ours), ""},
		{"one descriptor left out", submissionVP(t, "d", []string{"a"}, ours), `input descriptor "b" is not in presentation_submission.descriptor_map`},
		{"empty definition_id", submissionVP(t, "", []string{"a", "b"}, ours), "definition_id"},
		{"proof without challenge", submissionVP(t, "d", []string{"a", "b"}, map[string]any{"type": "Ed25519Signature2018"}), "does not carry the request's challenge"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			problems := checkSubmission(def, tt.vp, "c", "")
			if tt.want == "" && len(problems) != 0 || tt.want != "" && (len(problems) != 1 || !strings.Contains(problems[0], tt.want)) {
				t.Fatalf("problems %q, want %q", problems, tt.want)
			}
		})
	}
}

// A pick with only a max (no count, no min) still needs one descriptor.
func TestPickWithOnlyMaxNeedsOne(t *testing.T) {
	def := []byte(`{"presentation_definition":{"id":"d","input_descriptors":[{"id":"a","group":["A"]},{"id":"b","group":["A"]},{"id":"c","group":["B"]}],
		"submission_requirements":[{"rule":"all","from":"B"},{"rule":"pick","max":2,"from":"A"}]}}`)
	problems := checkSubmission(def, submissionVP(t, "d", []string{"c"}, map[string]any{"challenge": "c"}), "c", "")
	if len(problems) != 1 || !strings.Contains(problems[0], "pick from group A, max 2") {
		t.Fatalf("problems %q", problems)
	}
}

// A JWT presentation without a nonce is not bound to the request.
func TestJWTPresentationWithoutNonce(t *testing.T) {
	def := []byte(`{"presentation_definition":{"id":"d","input_descriptors":[{"id":"age"}]}}`)
	vc := unsignedJWT(map[string]any{"iss": "did:example:i", "vc": map[string]any{"credentialSubject": map[string]any{"age": 30}}})
	p := map[string]any{"iss": "did:example:h", "vp": map[string]any{
		"verifiableCredential": []any{vc},
		"presentation_submission": map[string]any{"definition_id": "d", "descriptor_map": []any{map[string]any{
			"id": "age", "format": "jwt_vp", "path": "$", "path_nested": map[string]any{"id": "age", "format": "jwt_vc", "path": "$.vp.verifiableCredential[0]"}}}},
	}}
	b, _ := json.Marshal(unsignedJWT(p))
	problems := checkSubmission(def, b, "c", "")
	if len(problems) != 1 || !strings.Contains(problems[0], "nonce is not the request's challenge") {
		t.Fatalf("problems %q", problems)
	}
}

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
