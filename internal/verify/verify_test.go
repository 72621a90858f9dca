package verify

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

type fake struct{ formats []string }

func (f fake) Formats() []string { return f.formats }
func (fake) Verify(context.Context, Input) (Verdict, error) {
	return Verdict{Verified: true}, nil
}

func TestSet(t *testing.T) {
	a, b := fake{[]string{"x", "y"}}, fake{[]string{"y"}}
	s := NewSet(a, b)
	if s.For("x") == nil || s.For("z") != nil {
		t.Fatalf("set %v", s)
	}
	if got := s.For("y").(fake); len(got.formats) != 1 {
		t.Fatal("a later verifier does not replace an earlier one")
	}
}

func TestTruncate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{strings.Repeat("a", 20), 10, strings.Repeat("a", 7) + "…"},
		{strings.Repeat("é", 10), 9, "ééé…"}, // 6 bytes of é, 3 of …
		{strings.Repeat("é", 10), 8, "éé…"},
	} {
		got := Truncate(tt.in, tt.n)
		if got != tt.want || len(got) > tt.n || !utf8.ValidString(got) {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
	if v := Fail("f", ReasonSignature, strings.Repeat("x", 1000)); len(v.Detail) > MaxDetail || v.Verified {
		t.Fatalf("Fail: %+v", v)
	}
}
