package jsonlimit

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/jsonscan"
)

func TestCheck(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	obj := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	tests := []struct {
		name   string
		in     string
		depth  int
		values int
		want   error
	}{
		{"scalar", ` "x" `, 1, 1, nil},
		{"64 deep", nest(64), 64, 100, nil},
		{"65 deep", nest(65), 64, 100, &LimitError{Depth: true, Limit: 64}},
		{"300 deep objects", obj(300), 64, 1000, &LimitError{Depth: true, Limit: 64}},
		{"values at the limit", `[1,"a",true,null,{"k":[]}]`, 4, 7, nil},
		{"one value too many", `[1,"a",true,null,{"k":[]}]`, 4, 6, &LimitError{Limit: 6}},
		{"member names are not values", `{"a":1,"b":2}`, 2, 3, nil},
		{"escapes", `["a\"b\\",{"\"":"\u00e9"}]`, 4, 4, nil},
		{"invalid", `[1,]`, 4, 10, ErrInvalid},
		{"trailing", `[1] x`, 4, 10, ErrInvalid},
		{"unclosed", `{"a":[1`, 4, 10, ErrInvalid},
		{"bad word", `[tru]`, 4, 10, ErrInvalid},
		{"bad number", `[01]`, 4, 10, ErrInvalid},
		{"bad escape", `["\x"]`, 4, 10, ErrInvalid},
		{"control character", "[\"a\tb\"]", 4, 10, ErrInvalid},
		{"empty", ``, 4, 10, ErrInvalid},
	}
	for _, tt := range tests {
		err := Check([]byte(tt.in), tt.depth, tt.values)
		var le, want *LimitError
		switch {
		case tt.want == nil:
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
		case errors.As(tt.want, &want):
			if !errors.As(err, &le) || *le != *want {
				t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
			}
		case !errors.Is(err, tt.want):
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
}

// TestCheckAllocs: measuring costs no allocation, however deep the input.
func TestCheckAllocs(t *testing.T) {
	in := []byte(strings.Repeat(`{"a":[`, 5000))
	if n := testing.AllocsPerRun(10, func() { _ = Check(in, MaxDepth, MaxValues) }); n > 1 {
		t.Fatalf("%v allocations", n)
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `[[[[]]]]`, `"\u0000"`, `-1.5e3`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Check([]byte(s), 8, 50)
		var le *LimitError
		if err != nil && !errors.As(err, &le) && !errors.Is(err, ErrInvalid) {
			t.Fatal(err)
		}
		// With encoding/json's nesting limit and no value limit, Check
		// judges as encoding/json.
		if err := Check([]byte(s), jsonscan.MaxDepth, 1<<30); (err == nil) != json.Valid([]byte(s)) {
			t.Fatalf("Check %q: %v, json.Valid %v", s, err, json.Valid([]byte(s)))
		}
	})
}
