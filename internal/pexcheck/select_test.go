package pexcheck

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestDescriptorPaths: descriptor_map paths (and path_nested) are plain.
func TestDescriptorPaths(t *testing.T) {
	def := []byte(`{"presentation_definition":{"id":"d","input_descriptors":[{"id":"x","constraints":{"fields":[{"path":["$.credentialSubject.a"]}]}}]}}`)
	cred := map[string]any{"credentialSubject": map[string]any{"a": 1}}
	tests := []struct {
		name   string
		path   string
		nested any
		want   string // "" = answers
	}{
		{"index", "$.verifiableCredential[0]", nil, ""},
		{"bracket names", "$['verifiableCredential'][0]", nil, ""},
		{"nested plain", "$", map[string]any{"id": "x", "format": "ldp_vc", "path": "$.verifiableCredential[0]"}, ""},
		{"wildcard", "$.verifiableCredential[*]", nil, "is not a plain JSONPath"},
		{"descent", "$..verifiableCredential[0]", nil, "is not a plain JSONPath"},
		{"filter", "$.verifiableCredential[?(@.a)]", nil, "is not a plain JSONPath"},
		{"too long", "$" + strings.Repeat(".a", 128), nil, "at most 256 characters"},
		{"nested not plain", "$", map[string]any{"id": "x", "format": "ldp_vc", "path": "$..*..*"}, `descriptor_map[0].path_nested.path "$..*..*" is not a plain JSONPath`},
		// A credential the verifier does not check (it checks the
		// verifiableCredential entries) never answers the request.
		{"outside the credentials", "$.other", nil, `path "$.other" selects a value that is not one of the presentation's verifiableCredential entries`},
		{"nested outside the credentials", "$", map[string]any{"id": "x", "format": "ldp_vc", "path": "$.other"}, "not one of the presentation's verifiableCredential entries"},
		{"the presentation itself", "$", nil, "not one of the presentation's verifiableCredential entries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entry := map[string]any{"id": "x", "format": "ldp_vc", "path": tt.path}
			if tt.nested != nil {
				entry["format"], entry["path_nested"] = "ldp_vp", tt.nested
			}
			pres, _ := json.Marshal(map[string]any{
				"presentation_submission": map[string]any{"definition_id": "d", "descriptor_map": []any{entry}},
				"verifiableCredential":    []any{cred},
				// An equal copy of the credential, outside the list.
				"other": map[string]any{"credentialSubject": map[string]any{"a": 1}},
				"proof": map[string]any{"challenge": "c"},
			})
			problems := Check(def, pres, "c", "")
			if tt.want == "" && len(problems) != 0 || tt.want != "" && (len(problems) != 1 || !strings.Contains(problems[0], tt.want)) {
				t.Fatalf("problems %q, want %q", problems, tt.want)
			}
		})
	}
	// More entries than MaxDescriptorMap: refused before any path runs.
	var many []any
	for i := 0; i <= MaxDescriptorMap; i++ {
		many = append(many, map[string]any{"id": "x", "path": "$.verifiableCredential[0]"})
	}
	pres, _ := json.Marshal(map[string]any{"presentation_submission": map[string]any{"definition_id": "d", "descriptor_map": many}, "proof": map[string]any{"challenge": "c"}})
	if p := Check(def, pres, "c", ""); len(p) != 1 || !strings.Contains(p[0], "at most 64 are taken") {
		t.Fatalf("problems %q", p)
	}
}

// TestDefinitionPathBudget: costly definition paths over a large
// credential stop at the presentation's budget.
func TestDefinitionPathBudget(t *testing.T) {
	def := []byte(`{"presentation_definition":{"id":"d","input_descriptors":[{"id":"x","constraints":{"fields":[{"path":["$..nothing"]}]}}]}}`)
	// Each entry names a credential of its own: a (descriptor,
	// credential) pair named again is judged once, so the work is spread
	// over distinct ones.
	var creds, dm []any
	for i := 0; i < MaxDescriptorMap; i++ {
		wide := map[string]any{}
		for j := 0; j < 300; j++ {
			wide[string(rune('a'+j%26))+strings.Repeat("k", j/26)] = []any{1, 2, 3, 4, 5, 6, 7, 8, 9, map[string]any{"z": []any{1, 2, 3}}}
		}
		creds = append(creds, wide)
		dm = append(dm, map[string]any{"id": "x", "format": "ldp_vc", "path": "$.verifiableCredential[" + strconv.Itoa(i) + "]"})
	}
	pres, _ := json.Marshal(map[string]any{
		"presentation_submission": map[string]any{"definition_id": "d", "descriptor_map": dm},
		"verifiableCredential":    creds,
		"proof":                   map[string]any{"challenge": "c"},
	})
	problems := Check(def, pres, "c", "")
	if len(problems) == 0 || !strings.Contains(strings.Join(problems, "\n"), "exceeded the verifier's work limit") {
		t.Fatalf("problems %q", problems)
	}
}
