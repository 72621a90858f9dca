package jsonenc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var seeds = []string{
	"", "plain", "https://verifier.example.com/?oob=eyJAdHlwZSI6Imh0dHBzOi8vZGlkY29tbS5vcmcvb3V0LW9mLWJhbmQvMS4xL2ludml0YXRpb24ifQ",
	`q"uote`, `back\slash`, "\b\f\n\r\t", "\x00\x01\x1f\x7f", "<script>&amp;</script>", "bad \xff byte", "cut \xe2\x80",
	"line\u2028para\u2029", "ünïcödé ✓ 😀", "12345678<", "1234567\"", "abcdefgh\x80", strings.Repeat("a", 7) + "é",
}

func encodingJSON(t *testing.T, s string, html bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// FuzzAppendString holds AppendString, for strings and byte slices, with
// and without HTML escaping, to encoding/json.
func FuzzAppendString(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{false, true} {
			want := encodingJSON(t, s, html)
			if got := string(AppendString(nil, s, html)); got != want {
				t.Fatalf("AppendString(%q, html %v) = %s, encoding/json %s", s, html, got, want)
			}
			if got := string(AppendString([]byte("x"), []byte(s), html)); got != "x"+want {
				t.Fatalf("AppendString([]byte %q, html %v) = %s, encoding/json %s", s, html, got, want)
			}
		}
	})
}

// FuzzAppendCompact holds AppendCompact to what encoding/json writes for a
// json.RawMessage, with HTML escaping (json.Marshal) and without (an
// Encoder with SetEscapeHTML(false)): the same bytes, or both refusing.
func FuzzAppendCompact(f *testing.F) {
	for _, s := range append(seeds, `{}`, ` { "a" : [ 1 , -2.5e3 , true , null , { "b<" : "&" } ] } `, `{"a":1,}`, `[1 2]`, `01`, `"\u12G4"`, `{} {}`, ``) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, html := range []bool{false, true} {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(html)
			wantErr := enc.Encode(json.RawMessage(raw))
			want := strings.TrimSuffix(buf.String(), "\n")
			got, err := AppendCompact([]byte("x"), raw, html)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("AppendCompact(%q, html %v): error %v, encoding/json %v", raw, html, err, wantErr)
			}
			if err == nil && string(got) != "x"+want {
				t.Fatalf("AppendCompact(%q, html %v) = %s, encoding/json %s", raw, html, got, want)
			}
		}
	})
}

// TestAppendCompact: whitespace dropped wherever it may be, HTML escaped
// in keys and values alike, and on an error b comes back as it was.
func TestAppendCompact(t *testing.T) {
	for _, tc := range []struct {
		src, want string
		html      bool
	}{
		{" \t\r\n{ \"a\" : [ 1 , { } , [ ] , \"x y\" ] , \"b\" :null }\n", `{"a":[1,{},[],"x y"],"b":null}`, false},
		{`{"<k>":"a&b","c":"\u003c<"}`, `{"\u003ck\u003e":"a\u0026b","c":"\u003c\u003c"}`, true},
		{`{"<k>":"a&b"}`, `{"<k>":"a&b"}`, false},
		{"[\"\u2028\", \"x\u2029\"]", `["\u2028","x\u2029"]`, true},
		{"[\"\u2028\"]", "[\"\u2028\"]", false},
		{`"\\<"`, `"\\\u003c"`, true},
		{`[true,false,-0.5e-3]`, `[true,false,-0.5e-3]`, true},
	} {
		got, err := AppendCompact([]byte("x"), []byte(tc.src), tc.html)
		if err != nil || string(got) != "x"+tc.want {
			t.Errorf("AppendCompact(%q, html %v) = %s, %v; want x%s", tc.src, tc.html, got, err, tc.want)
		}
	}
	for _, src := range []string{``, ` `, `[1 2]`, `{"a" 1}`, `[1,]`, `{"a":1} x`, "\"\x01\"", `{"a":tru}`} {
		b := []byte("kept")
		// Callers wrap the message ("presentation definition: invalid JSON").
		if got, err := AppendCompact(b, []byte(src), true); err == nil || err.Error() != "invalid JSON" || string(got) != "kept" {
			t.Errorf("AppendCompact(%q) = %q, %v; want kept and invalid JSON", src, got, err)
		}
	}
}
