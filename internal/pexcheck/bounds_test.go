package pexcheck

import (
	"encoding/json"
	"strings"
	"testing"
)

// The check's half of bounds that internal/proofs also holds the whole
// pipeline to (its tests of the same names time a Receive).

// TestRepeatedDescriptorIsJudgedOnce: descriptor_map may name one input
// descriptor and one credential MaxDescriptorMap times (DIF does not
// forbid repeating an entry), and each (descriptor, credential) pair is
// judged once: the problems of a pair are told once, and a repeated
// entry that meets the descriptor meets it.
func TestRepeatedDescriptorIsJudgedOnce(t *testing.T) {
	def := []byte(`{"presentation_definition":{"id":"d","input_descriptors":[{"id":"age","constraints":{"fields":[
		{"path":["$.credentialSubject.age"],"filter":{"type":"integer","minimum":18}}]}}]}}`)
	for _, tt := range []struct {
		age  int
		want int // "does not match the filter" problems
	}{{12, 1}, {30, 0}} {
		entries := []any{}
		for range MaxDescriptorMap {
			entries = append(entries, map[string]any{"id": "age", "format": "ldp_vc", "path": "$.verifiableCredential[0]"})
		}
		pres, _ := json.Marshal(map[string]any{
			"presentation_submission": map[string]any{"definition_id": "d", "descriptor_map": entries},
			"verifiableCredential":    []any{map[string]any{"credentialSubject": map[string]any{"age": tt.age}}},
			"proof":                   map[string]any{"challenge": "c"},
		})
		problems := Check(def, pres, "c", "")
		if got := strings.Count(strings.Join(problems, "\n"), "does not match the filter"); got != tt.want || len(problems) != tt.want {
			t.Errorf("age %d, %d identical entries: problems %q, want %d", tt.age, MaxDescriptorMap, problems, tt.want)
		}
	}
}

// TestHugeNumbersAreRefusedBeforeFilters: a number past pefilter's bounds
// (which an ordinary age filter would read as an exact fraction, ~20 ms
// for "1e999999") is refused before any filter reads it, in a JWT
// credential as in a JSON-LD presentation; a number a filter compares
// still is.
func TestHugeNumbersAreRefusedBeforeFilters(t *testing.T) {
	def := []byte(`{"presentation_definition":{"id":"d","input_descriptors":[{"id":"age","constraints":{"fields":[
		{"path":["$.credentialSubject.age","$.vc.credentialSubject.age"],"filter":{"type":"integer","minimum":18}}]}}]}}`)
	for _, tt := range []struct {
		name string
		cred any
		want string // "" for no problem
	}{
		{"JWT credential", unsignedJWT(map[string]any{"vc": map[string]any{"credentialSubject": map[string]any{"age": json.Number("1e999999")}}}),
			"is a JWT whose payload has the number 1e999999 at /vc/credentialSubject/age"},
		{"JWT credential, a 256-bit integer", unsignedJWT(map[string]any{"vc": map[string]any{"credentialSubject": map[string]any{
			"age": json.Number("115792089237316195423570985008687907853269984665640564039457584007913129639935")}}}), ""},
		{"JSON-LD credential, 1e308", map[string]any{"credentialSubject": map[string]any{"age": json.Number("1e308")}}, ""},
	} {
		format := "ldp_vc"
		if _, ok := tt.cred.(string); ok {
			format = "jwt_vc"
		}
		pres, _ := json.Marshal(map[string]any{
			"presentation_submission": map[string]any{"definition_id": "d", "descriptor_map": []any{map[string]any{"id": "age", "format": format, "path": "$.verifiableCredential[0]"}}},
			"verifiableCredential":    []any{tt.cred},
			"proof":                   map[string]any{"challenge": "c"},
		})
		problems := Check(def, pres, "c", "")
		if got := strings.Join(problems, "; "); (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: problems %q, want %q", tt.name, got, tt.want)
		}
	}
}
