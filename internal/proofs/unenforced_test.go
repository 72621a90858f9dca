package proofs

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
)

// A definition asking, as "required", what the local verifier does not
// enforce is refused at create time, naming the field (a 400), instead of
// the record accepting a presentation the definition says must fail;
// "preferred" is accepted.
func TestUnenforcedConstraintsRefused(t *testing.T) {
	s := newTestService(t, fileStorage(t))
	for _, tt := range []struct {
		constraints string
		field       string // "" accepted
	}{
		{`{"fields":[{"path":["$.type"]}]}`, ""},
		{`{"is_holder":[{"field_id":["s"],"directive":"preferred"}],"same_subject":[{"field_id":["s"],"directive":"preferred"}],"subject_is_issuer":"preferred","limit_disclosure":"preferred","fields":[{"id":"s","path":["$.credentialSubject.id"]}]}`, ""},
		{`{"is_holder":[{"field_id":["s"],"directive":"required"}],"fields":[{"id":"s","path":["$.credentialSubject.id"]}]}`, "input_descriptors[0].constraints.is_holder[0].directive"},
		{`{"same_subject":[{"field_id":["s"],"directive":"required"}],"fields":[{"id":"s","path":["$.credentialSubject.id"]}]}`, "input_descriptors[0].constraints.same_subject[0].directive"},
		{`{"subject_is_issuer":"required"}`, "input_descriptors[0].constraints.subject_is_issuer"},
		{`{"limit_disclosure":"required","fields":[{"path":["$.credentialSubject.name"]}]}`, "input_descriptors[0].constraints.limit_disclosure"},
	} {
		req := peRequest()
		req.PresentationDefinition = json.RawMessage(`{"id":"def-1","input_descriptors":[{"id":"d","constraints":` + tt.constraints + `}]}`)
		_, err := s.Create(context.Background(), testOrg, req)
		var u *backend.UnsupportedError
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%s: %v, want accepted", tt.constraints, err)
		case tt.field != "" && (!errors.As(err, &u) || !strings.HasSuffix(u.Field, tt.field)):
			t.Errorf("%s: %v, want refused naming %s", tt.constraints, err, tt.field)
		}
	}
}

// A format (the definition's or an input descriptor's) in which the local
// verifier could verify no answer, at a level it constrains, is refused at
// create time naming the field: one parameter when one key constrains
// the level, the format object when several do. A format with one
// verifiable key per level is accepted: the holder can answer in it.
func TestUnverifiableFormatRefused(t *testing.T) {
	s := newTestService(t, fileStorage(t))
	for _, tt := range []struct {
		defFormat, descFormat string // JSON; "" none
		field                 string // "" accepted
	}{
		{"", "", ""},
		{`{}`, `{}`, ""},
		{`{"ldp_vc":{}}`, "", ""},
		{`{"jwt_vc":{"alg":["ES256"]}}`, "", ""},
		{`{"jwt_vc":{"alg":["ES384","EdDSA"]}}`, "", ""},
		{`{"ldp_vp":{"proof_type":["Ed25519Signature2018"]}}`, "", ""}, // as ACA-Py needs it
		{`{"ldp":{"proof_type":["DataIntegrityProof"]}}`, "", ""},
		{`{"di_vc":{"proof_type":["DataIntegrityProof"],"cryptosuite":["bbs-2023","eddsa-jcs-2022"]}}`, "", ""},
		{`{"jwt_vc":{"alg":["ES384"]},"ldp_vc":{"proof_type":["Ed25519Signature2018"]}}`, "", ""},
		{`{"jwt_vc":{"alg":["ES384"]}}`, "", "presentationDefinition.format.jwt_vc.alg"},
		{`{"ldp_vc":{"proof_type":["BbsBlsSignature2020"]}}`, "", "presentationDefinition.format.ldp_vc.proof_type"},
		{`{"ldp_vc":{"proof_type":["eddsa-rdfc-2022"]}}`, "", "presentationDefinition.format.ldp_vc.proof_type"},
		{`{"di_vc":{"proof_type":["DataIntegrityProof"],"cryptosuite":["bbs-2023"]}}`, "", "presentationDefinition.format.di_vc.cryptosuite"},
		{`{"jwt_vc":{"alg":["ES384"]},"ldp_vc":{"proof_type":["BbsBlsSignature2020"]}}`, "", "presentationDefinition.format"},
		{`{"ldp_vc":{"proof_type":["Ed25519Signature2018"]},"jwt_vp":{"alg":["RS256"]}}`, "", "presentationDefinition.format.jwt_vp.alg"},
		{`{"ldp":{"proof_type":["BbsBlsSignature2020"]}}`, "", "presentationDefinition.format.ldp.proof_type"},
		{"", `{"jwt_vc":{"alg":["RS256"]}}`, "presentationDefinition.input_descriptors[0].format.jwt_vc.alg"},
		{`{"jwt_vc":{"alg":["RS256"]}}`, `{"ldp_vc":{}}`, "presentationDefinition.format.jwt_vc.alg"},
	} {
		req := peRequest()
		def := `{"id":"def-1",`
		if tt.defFormat != "" {
			def += `"format":` + tt.defFormat + `,`
		}
		desc := `{"id":"d",`
		if tt.descFormat != "" {
			desc += `"format":` + tt.descFormat + `,`
		}
		req.PresentationDefinition = json.RawMessage(def + `"input_descriptors":[` + desc + `"constraints":{"fields":[{"path":["$.type"]}]}}]}`)
		_, err := s.Create(context.Background(), testOrg, req)
		var u *backend.UnsupportedError
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%s %s: %v, want accepted", tt.defFormat, tt.descFormat, err)
		case tt.field != "" && (!errors.As(err, &u) || u.Field != tt.field):
			t.Errorf("%s %s: %v, want refused naming %s", tt.defFormat, tt.descFormat, err, tt.field)
		case tt.field != "" && !strings.Contains(u.Message, "it verifies jwt formats with alg EdDSA or ES256, and ldp and di formats with proof_type Ed25519Signature2018"):
			t.Errorf("%s: the message does not say what is verified: %s", tt.field, u.Message)
		}
	}
}

// A rev_reg_id restriction is never met by the local verifier (the
// registry a presentation names is unproven until non-revocation proofs
// are verified), so a request with one is refused at create time naming
// it, instead of a record that no presentation can answer.
func TestRevRegIDRestrictionRefused(t *testing.T) {
	s := newTestService(t, fileStorage(t))
	const regID = "WgWxqztrNooG92RXvxSTWv:4:WgWxqztrNooG92RXvxSTWv:3:CL:20:tag:CL_ACCUM:0"
	for _, tt := range []struct {
		name  string
		req   backend.IndyProofRequest
		field string // "" accepted
	}{
		{"schema restriction", backend.IndyProofRequest{Name: "p", Version: "1",
			RequestedAttributes: map[string]backend.IndyAttribute{"a": {Name: "name", Restrictions: []map[string]string{{"schema_name": "person"}}}}}, ""},
		{"attribute", backend.IndyProofRequest{Name: "p", Version: "1",
			RequestedAttributes: map[string]backend.IndyAttribute{
				"a": {Name: "name", Restrictions: []map[string]string{{"schema_name": "person"}}},
				"b": {Name: "age", Restrictions: []map[string]string{{"schema_name": "person"}, {"schema_name": "person", "rev_reg_id": regID}}},
			}}, "proofFormats.indy.requested_attributes.b.restrictions[1].rev_reg_id"},
		{"predicate", backend.IndyProofRequest{Name: "p", Version: "1",
			RequestedPredicates: map[string]backend.IndyPredicate{"p": {Name: "age", PType: ">=", PValue: 18, Restrictions: []map[string]string{{"rev_reg_id": regID}}}}},
			"proofFormats.indy.requested_predicates.p.restrictions[0].rev_reg_id"},
	} {
		req := indyRequest()
		req.Indy = &tt.req
		_, err := s.Create(context.Background(), testOrg, req)
		var u *backend.UnsupportedError
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%s: %v, want accepted", tt.name, err)
		case tt.field != "" && (!errors.As(err, &u) || u.Field != tt.field):
			t.Errorf("%s: %v, want refused naming %s", tt.name, err, tt.field)
		}
	}
}
