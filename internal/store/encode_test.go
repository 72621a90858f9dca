package store

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/jsonenc"
)

var rawSeeds = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-1.5e+10`, `"x"`, ` { "a" : [ 1 , 2 , { "b" : null } ] } `,
	`{"html":"<a href=\"x\">&amp;</a>","sep":"a\u2028b` + "\u2029" + `c","esc":"\u003c\n\t\\\/"}`,
	"\"bad \xff utf-8 \xe2\x80\"", `{"a":1,}`, `[1,]`, `{"a" 1}`, `01`, `1.`, `-`, `"\x"`, `"\u12G4"`, `"open`,
	`{} {}`, ``, ` `, `tru`, `nul`, "\"ctl \x01\"", `{"a":"` + "\xe2\x80\xa8" + `"}`,
}

// FuzzAppendRaw holds AppendRaw to json.Marshal of a json.RawMessage:
// the same bytes, or both refusing.
func FuzzAppendRaw(f *testing.F) {
	for _, s := range rawSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want, wantErr := json.Marshal(json.RawMessage(raw))
		got, err := AppendRaw(nil, raw)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("AppendRaw(%q): error %v, json.Marshal %v", raw, err, wantErr)
		}
		if err == nil && string(got) != string(want) {
			t.Fatalf("AppendRaw(%q) = %s, json.Marshal %s", raw, got, want)
		}
	})
}

func TestAppendRawNil(t *testing.T) {
	if got, err := AppendRaw([]byte("x:"), nil); err != nil || string(got) != "x:null" {
		t.Fatalf("%s %v", got, err)
	}
	if _, err := AppendRaw(nil, json.RawMessage{}); err == nil {
		t.Fatal("an empty raw message is accepted")
	}
}

// FuzzAppendString holds AppendString to json.Marshal of a string.
func FuzzAppendString(f *testing.F) {
	for _, s := range append(rawSeeds, "plain", "\b\f\n\r\t\x00\x1f\x7f", "ünï 😀 \u2028\u2029 <>&") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, json.Marshal %s", s, got, want)
		}
	})
}

// appender writes a fixed encoding: Put stores exactly what it appends.
type appender string

func (a appender) AppendJSON(b []byte) ([]byte, error) { return append(b, a...), nil }

func TestPutUsesAppendJSON(t *testing.T) {
	got, err := Marshal(appender(`{"by":"hand"}`))
	if err != nil || string(got) != `{"by":"hand"}` {
		t.Fatalf("%s %v", got, err)
	}
	got, err = Marshal(map[string]string{"by": "encoding/json"})
	if err != nil || string(got) != `{"by":"encoding/json"}` {
		t.Fatalf("%s %v", got, err)
	}
}

// encoding/json's nesting limit holds here too.
func TestAppendRawDepth(t *testing.T) {
	for _, n := range []int{jsonenc.MaxDepth, jsonenc.MaxDepth + 1} {
		raw := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		_, wantErr := json.Marshal(json.RawMessage(raw))
		if _, err := AppendRaw(nil, raw); (err != nil) != (wantErr != nil) {
			t.Errorf("depth %d: %v, json.Marshal %v", n, err, wantErr)
		}
	}
}
