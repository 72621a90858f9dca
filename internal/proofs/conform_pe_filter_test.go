package proofs

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/jsonpath"
)

// TestFieldFilterDateBounds: the local verifier reads a DIF v1 date bound
// (string maximum beside "format": "date", as in the DIF v1 examples) as a
// comparison of dates, like create-time validation does (both compile
// filters with internal/pefilter).
func TestFieldFilterDateBounds(t *testing.T) {
	var d peDescriptor
	if err := json.Unmarshal([]byte(`{"id":"us_passport_input","constraints":{"fields":[
		{"path":["$.credentialSubject.birth_date"],"filter":{"type":"string","format":"date","maximum":"1999-05-16"}}]}}`), &d); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		dob  string
		want string // problem substring, "" for none
	}{
		{"1999-05-16", ""},
		{"1980-12-31", ""},
		{"1999-05-17", "does not match the filter"},
		{"not a date", "does not match the filter"},
	} {
		cred := map[string]any{"credentialSubject": map[string]any{"birth_date": tt.dob}}
		budget := jsonpath.NewBudget(10000, 1000, time.Now().Add(time.Minute))
		got := strings.Join(fieldProblems(&d, cred, budget), "; ")
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("birth_date %s: problems %q, want %q", tt.dob, got, tt.want)
		}
	}
}
