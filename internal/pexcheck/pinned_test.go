package pexcheck

// The tests in this file pin checks that a round of mutation testing
// found held by no test: each fails when its check is dropped or weakened.

import (
	"encoding/json"
	"strings"
	"testing"
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
			problems := Check(def, tt.vp, "c", "")
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
	problems := Check(def, submissionVP(t, "d", []string{"c"}, map[string]any{"challenge": "c"}), "c", "")
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
	problems := Check(def, b, "c", "")
	if len(problems) != 1 || !strings.Contains(problems[0], "nonce is not the request's challenge") {
		t.Fatalf("problems %q", problems)
	}
}
