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
