package pexcheck

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

func TestSubmissionRequirements(t *testing.T) {
	def := `{"presentation_definition":{"id":"d","input_descriptors":[
		{"id":"a","group":["A"]},{"id":"b","group":["A"]},{"id":"c","group":["B"]}],
		"submission_requirements":[%s]}}`
	tests := []struct {
		name, reqs string
		submitted  []string
		want       string // "" = met
	}{
		{"all met", `{"rule":"all","from":"A"}`, []string{"a", "b"}, ""},
		{"all unmet", `{"rule":"all","from":"A"}`, []string{"a"}, "all from group A"},
		{"pick count met", `{"rule":"pick","count":1,"from":"A"}`, []string{"b"}, ""},
		{"pick count more is fine", `{"rule":"pick","count":1,"from":"A"}`, []string{"a", "b"}, ""},
		{"pick count unmet", `{"name":"one of A","rule":"pick","count":2,"from":"A"}`, []string{"a"}, "one of A (pick from group A, count 2)"},
		{"pick min unmet", `{"rule":"pick","min":1,"from":"B"}`, []string{"a"}, "min 1"},
		{"pick max exceeded", `{"rule":"pick","max":1,"from":"A"}`, []string{"a", "b"}, "max 1"},
		{"nested met", `{"rule":"pick","count":1,"from_nested":[{"rule":"all","from":"A"},{"rule":"all","from":"B"}]}`, []string{"c"}, ""},
		{"nested unmet", `{"rule":"all","from_nested":[{"rule":"all","from":"A"},{"rule":"all","from":"B"}]}`, []string{"c"}, "all from 2 nested"},
		{"two requirements", `{"rule":"all","from":"A"},{"rule":"all","from":"B"}`, []string{"a", "b"}, "#1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dm []any
			for _, id := range tt.submitted {
				dm = append(dm, map[string]any{"id": id, "format": "ldp_vc", "path": "$.verifiableCredential[0]"})
			}
			vp, _ := json.Marshal(map[string]any{
				"presentation_submission": map[string]any{"definition_id": "d", "descriptor_map": dm},
				"verifiableCredential":    []any{map[string]any{"credentialSubject": map[string]any{}}},
				"proof":                   []any{map[string]any{"challenge": "other"}, map[string]any{"challenge": "c"}},
			})
			problems := Check([]byte(strings.Replace(def, "%s", tt.reqs, 1)), vp, "c", "")
			if tt.want == "" && len(problems) != 0 || tt.want != "" && (len(problems) != 1 || !strings.Contains(problems[0], tt.want)) {
				t.Fatalf("problems %q, want %q", problems, tt.want)
			}
		})
	}
}

func TestFieldFilters(t *testing.T) {
	def := []byte(`{"presentation_definition":{"id":"d","input_descriptors":[{"id":"age","constraints":{"fields":[
		{"path":["$.credentialSubject.age","$.vc.credentialSubject.age"],"filter":{"type":"number","minimum":18}},
		{"path":["$.credentialSubject.nickname"],"optional":true}]}}]}}`)
	tests := []struct {
		name    string
		subject any
		path    string
		want    string
	}{
		{"first path matches", map[string]any{"age": 30}, "$.verifiableCredential[0]", ""},
		{"filter fails", map[string]any{"age": 12}, "$.verifiableCredential[0]", "does not match the filter"},
		{"missing", map[string]any{}, "$.verifiableCredential[0]", "has no $.credentialSubject.age"},
		{"odd path", map[string]any{"age": 30}, "$[?(@.x ==", "is not a plain JSONPath"},
		{"JWT credential without the field", "eyJhbGciOiJFZERTQSJ9.e30.c2ln", "$.verifiableCredential[0]", "has no $.credentialSubject.age"},
		{"JWT credential", unsignedJWT(map[string]any{"iss": "did:example:i", "vc": map[string]any{"credentialSubject": map[string]any{"age": 30}}}), "$.verifiableCredential[0]", ""},
		{"JWT credential too young", unsignedJWT(map[string]any{"vc": map[string]any{"credentialSubject": map[string]any{"age": 12}}}), "$.verifiableCredential[0]", "does not match the filter"},
		{"not a JWT", "just words", "$.verifiableCredential[0]", "not a compact JWT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cred any = map[string]any{"credentialSubject": tt.subject}
			format := "ldp_vc"
			if s, ok := tt.subject.(string); ok {
				cred, format = s, "jwt_vc"
			}
			vp, _ := json.Marshal(map[string]any{
				"presentation_submission": map[string]any{"definition_id": "d", "descriptor_map": []any{map[string]any{"id": "age", "format": format, "path": tt.path}}},
				"verifiableCredential":    []any{cred},
				"proof":                   map[string]any{"challenge": "c", "domain": "v.example"},
			})
			problems := Check(def, vp, "c", "v.example")
			if tt.want == "" && len(problems) != 0 || tt.want != "" && (len(problems) != 1 || !strings.Contains(problems[0], tt.want)) {
				t.Fatalf("problems %q, want %q", problems, tt.want)
			}
		})
	}
	if p := Check(def, []byte(`"eyJhbGciOiJFZERTQSJ9.e30.c2ln"`), "c", ""); len(p) != 1 || !strings.Contains(p[0], "no presentation_submission") {
		t.Fatalf("JWT VP: %q", p)
	}
}

// unsignedJWT is a compact JWS of payload with a dummy signature: the
// structural check reads JWTs without verifying them.
func unsignedJWT(payload map[string]any) string {
	b, _ := json.Marshal(payload)
	return "eyJhbGciOiJFZERTQSJ9." + base64.RawURLEncoding.EncodeToString(b) + ".c2ln"
}

// TestJWTPresentation: a jwt_vp is read from its payload: the submission
// in the vp claim, nested jwt_vc credentials, entries' paths from the
// payload or the vp claim, nonce and aud as challenge and domain.
func TestJWTPresentation(t *testing.T) {
	def := []byte(`{"presentation_definition":{"id":"d","input_descriptors":[{"id":"age","constraints":{"fields":[
		{"path":["$.credentialSubject.age","$.vc.credentialSubject.age"],"filter":{"type":"number","minimum":18}}]}}]}}`)
	vc := unsignedJWT(map[string]any{"iss": "did:example:i", "vc": map[string]any{"credentialSubject": map[string]any{"age": 30}}})
	vp := func(edit func(p, inner map[string]any)) []byte {
		inner := map[string]any{
			"verifiableCredential": []any{vc},
			"presentation_submission": map[string]any{"definition_id": "d", "descriptor_map": []any{map[string]any{
				"id": "age", "format": "jwt_vp", "path": "$", "path_nested": map[string]any{"id": "age", "format": "jwt_vc", "path": "$.vp.verifiableCredential[0]"}}}},
		}
		p := map[string]any{"iss": "did:example:h", "nonce": "c", "vp": inner}
		if edit != nil {
			edit(p, inner)
		}
		b, _ := json.Marshal(unsignedJWT(p))
		return b
	}
	tests := []struct {
		name string
		pres []byte
		want string
	}{
		{"answers", vp(nil), ""},
		{"aud is our domain", vp(func(p, _ map[string]any) { p["aud"] = []any{"x", "v.example"} }), ""},
		{"wrong nonce", vp(func(p, _ map[string]any) { p["nonce"] = "other" }), "nonce is not the request's challenge"},
		{"other audience", vp(func(p, _ map[string]any) { p["aud"] = "evil.example" }), `audience does not include the request's domain "v.example"`},
		{"submission outside vp", vp(func(p, inner map[string]any) {
			p["presentation_submission"] = inner["presentation_submission"]
			delete(inner, "presentation_submission")
		}), ""},
		// Credo 0.5.19's holder writes its entries' paths relative to the
		// vp claim (TestRealCredoFormData in internal/upstream/credo).
		{"path relative to the vp claim", vp(func(_, inner map[string]any) { setEntry(inner, "jwt_vc", "$.verifiableCredential[0]", nil) }), ""},
		{"path_nested relative to the vp claim", vp(func(_, inner map[string]any) {
			setEntry(inner, "jwt_vp", "$", map[string]any{"id": "age", "format": "jwt_vc", "path": "$.verifiableCredential[0]"})
		}), ""},
		{"vp claim itself with path_nested", vp(func(_, inner map[string]any) {
			setEntry(inner, "jwt_vp", "$.vp", map[string]any{"id": "age", "format": "jwt_vc", "path": "$.verifiableCredential[0]"})
		}), ""},
		{"path relative to the vp claim, filter failed", vp(func(_, inner map[string]any) {
			inner["verifiableCredential"] = []any{unsignedJWT(map[string]any{"iss": "did:example:i", "vc": map[string]any{"credentialSubject": map[string]any{"age": 12}}})}
			setEntry(inner, "jwt_vc", "$.verifiableCredential[0]", nil)
		}), "does not match the filter"},
		{"path in neither", vp(func(_, inner map[string]any) { setEntry(inner, "jwt_vc", "$.verifiableCredential[1]", nil) }), "selects nothing"},
		{"a credential outside verifiableCredential", vp(func(p, inner map[string]any) {
			p["other"] = []any{vc}
			inner["verifiableCredential"] = []any{}
			setEntry(inner, "jwt_vc", "$.other[0]", nil)
		}), "not one of the presentation's verifiableCredential entries"},
		{"payload not JSON", []byte(`"eyJhbGciOiJFZERTQSJ9.bm9wZQ.c2ln"`), "payload is not valid JSON"},
		{"payload an array", []byte(`"eyJhbGciOiJFZERTQSJ9.W10.c2ln"`), "payload is not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := Check(def, tt.pres, "c", "v.example")
			if tt.want == "" && len(problems) != 0 || tt.want != "" && (len(problems) != 1 || !strings.Contains(problems[0], tt.want)) {
				t.Fatalf("problems %q, want %q", problems, tt.want)
			}
		})
	}
}

// setEntry makes inner's submission one descriptor_map entry for "age".
func setEntry(inner map[string]any, format, path string, nested map[string]any) {
	e := map[string]any{"id": "age", "format": format, "path": path}
	if nested != nil {
		e["path_nested"] = nested
	}
	inner["presentation_submission"] = map[string]any{"definition_id": "d", "descriptor_map": []any{e}}
}

// TestProofBinding: the challenge must be ours; a domain, when the proof
// has one, too (ACA-Py signs none; the verifier's require_domain decides).
func TestProofBinding(t *testing.T) {
	tests := []struct {
		proof any
		want  string
	}{
		{map[string]any{"challenge": "c", "domain": "v.example"}, ""},
		{map[string]any{"challenge": "c"}, ""},
		{map[string]any{"challenge": "c", "domain": "evil.example"}, `domain "v.example"`},
		{[]any{map[string]any{"challenge": "x"}, map[string]any{"challenge": "c"}}, ""},
		{map[string]any{"challenge": "x", "domain": "v.example"}, "challenge"},
		{"not a proof", "has no proof"},
	}
	for _, tt := range tests {
		got := proofProblems(tt.proof, "c", "v.example")
		if tt.want == "" && len(got) != 0 || tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)) {
			t.Errorf("%v: %q, want %q", tt.proof, got, tt.want)
		}
	}
}
