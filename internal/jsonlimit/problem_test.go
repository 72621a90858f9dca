package jsonlimit

import (
	"strings"
	"testing"
)

// TestProblem: the text follows its subject, and names the limit
// exceeded; valid JSON within the limits has none.
func TestProblem(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"within the limits", `{"a":[1,2,{"b":null}]}`, ""},
		{"at the depth limit", strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), ""},
		{"too deep", strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), "nests deeper than 64 levels"},
		{"too many values", "[" + strings.Repeat("1,", MaxValues) + "1]", "holds more than 20000 values"},
		{"not JSON", `{"a":`, "is not valid JSON"},
		{"empty", ``, "is not valid JSON"},
	} {
		if got := Problem([]byte(tt.in)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
