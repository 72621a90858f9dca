package textcut

import (
	"testing"
	"unicode/utf8"
)

func TestPrefix(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abc", 5, "abc"},
		{"abcdef", 3, "abc"},
		{"", 0, ""},
		{"abc", 0, ""},
		{"aé", 2, "a"},   // é is two bytes: not split
		{"aé", 3, "aé"},  // fits
		{"a€b", 3, "a"},  // € is three bytes
		{"a€b", 4, "a€"}, // after it
		{"€", 1, ""},     // nothing whole fits
	} {
		got := Prefix(tt.s, tt.n)
		if got != tt.want {
			t.Errorf("Prefix(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
		if len(got) > tt.n {
			t.Errorf("Prefix(%q, %d) is %d bytes", tt.s, tt.n, len(got))
		}
		if utf8.ValidString(tt.s) && !utf8.ValidString(got) {
			t.Errorf("Prefix(%q, %d) = %q splits a character", tt.s, tt.n, got)
		}
	}
}
