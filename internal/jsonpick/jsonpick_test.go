package jsonpick

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// docs are the seeds of the tests below: valid and invalid JSON of every
// kind the grammar has, and the odd cases of member matching.
var docs = []string{
	``, ` `, `{}`, ` { } `, `[]`, `null`, ` null `, `nul`, `nullx`, `true`, `false`, `0`, `-0`, `01`, `-`, `1.`, `1.5e`, `1e+`,
	`1.5e-3`, `-12.5E+10`, `"x"`, `"\u00e9"`, `"\u00G0"`, `"\x"`, "\"\x01\"", `"a`, `{"a":}`, `{"a" 1}`, `{"a":1,}`, `{,}`,
	`[1,]`, `[1 2]`, `{"a":1}{}`, `{"a":"x","b":{"@id":"y"},"c":true}`, `{"a":"x","a":"y"}`, `{"A":"x"}`,
	`{"\u0061":"x"}`, `{"a":5}`, `{"a":null,"b":null,"c":null}`, `{"c":"true"}`, `{"c":1}`, `{"b":[1,{"x":[]}],"a":"é"}`,
	"{\"a\":\"\xff\xfe\"}", `{"a":"\ud800"}`, `{"a":"x\"y\\z\/\b\f\n\r\t"}`, "\t{\"a\" :\r\n\"x\" , \"b\":{}}\n",
	`{"a":"x"} x`, `[{"a":"1"},{"a":"2","b":null},3,null,"s",{"A":"x"}]`, `{"ſ":1}`, `{"K":1}`, `{"k":1}`,
	strings.Repeat(`[`, 50) + strings.Repeat(`]`, 50), `{"a":"` + strings.Repeat("0123456789abcdef", 20) + `"}`,
}

// TestDepthLimit: encoding/json takes 10000 levels of nesting, not 10001.
func TestDepthLimit(t *testing.T) {
	for _, n := range []int{MaxDepth, MaxDepth + 1} {
		doc := []byte(`{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`)
		_, err := Object(doc, []string{"a"}, make([][]byte, 1))
		if got, want := err == nil, json.Valid(doc); got != want {
			t.Errorf("depth %d: valid %v, encoding/json %v", n, got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, d := range docs {
		f.Add([]byte(d))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		_, err := Object(doc, []string{"a"}, make([][]byte, 1))
		if got, want := !errors.Is(err, ErrSyntax), json.Valid(doc); got != want {
			t.Fatalf("Object(%q): valid %v, encoding/json %v (%v)", doc, got, want, err)
		}
		err = Array(doc, []string{"a"}, func([]byte, [][]byte, bool) {})
		if got, want := !errors.Is(err, ErrSyntax), json.Valid(doc); got != want {
			t.Fatalf("Array(%q): valid %v, encoding/json %v (%v)", doc, got, want, err)
		}
	})
}

// sample is decoded both ways by FuzzObject and FuzzArray.
type sample struct {
	A string          `json:"a"`
	B json.RawMessage `json:"b"`
	C *bool           `json:"c"`
}

var sampleNames = []string{"a", "b", "c"}

// pickSample decodes vals as encoding/json would decode their object into
// a sample; ok is false where encoding/json would return an error.
func pickSample(vals [][]byte) (s sample, ok bool) {
	var okA, okC bool
	s.A, okA = String(vals[0])
	s.B = vals[1]
	s.C, okC = BoolPtr(vals[2])
	return s, okA && okC
}

func FuzzObject(f *testing.F) {
	for _, d := range docs {
		f.Add([]byte(d))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var want sample
		wantErr := json.Unmarshal(doc, &want)
		vals := make([][]byte, len(sampleNames))
		odd, err := Object(doc, sampleNames, vals)
		if err != nil {
			if wantErr == nil {
				t.Fatalf("Object(%q): %v, encoding/json decodes it", doc, err)
			}
			return
		}
		if odd {
			return // the caller uses encoding/json
		}
		got, ok := pickSample(vals)
		if ok != (wantErr == nil) {
			t.Fatalf("%q: ok %v, encoding/json: %v", doc, ok, wantErr)
		}
		// After a type error encoding/json may have set a *bool to a
		// zero value; callers use only the strings of a failed decode.
		if got.A != want.A || ok && (!bytes.Equal(got.B, want.B) || !reflect.DeepEqual(got.C, want.C)) {
			t.Fatalf("%q: picked %+v, encoding/json %+v", doc, got, want)
		}
	})
}

func FuzzArray(f *testing.F) {
	for _, d := range docs {
		f.Add([]byte(d))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var raws []json.RawMessage
		wantErr := json.Unmarshal(doc, &raws)
		var elems [][]byte
		err := Array(doc, sampleNames, func(elem []byte, vals [][]byte, odd bool) {
			elems = append(elems, elem)
			if odd {
				return
			}
			var want sample
			wantErr := json.Unmarshal(elem, &want)
			got, ok := pickSample(vals)
			if ok != (wantErr == nil) || ok && (got.A != want.A || !bytes.Equal(got.B, want.B) || !reflect.DeepEqual(got.C, want.C)) {
				t.Fatalf("element %q: picked %+v (%v), encoding/json %+v (%v)", elem, got, ok, want, wantErr)
			}
		})
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("Array(%q): %v, encoding/json: %v", doc, err, wantErr)
		}
		if err != nil {
			return
		}
		var objects [][]byte
		for _, r := range raws {
			if r[0] == '{' {
				objects = append(objects, r)
			}
		}
		if len(objects) != len(elems) {
			t.Fatalf("Array(%q) visited %d objects, there are %d", doc, len(elems), len(objects))
		}
		for i := range objects {
			if !bytes.Equal(objects[i], elems[i]) {
				t.Fatalf("Array(%q) element %d: %q, encoding/json %q", doc, i, elems[i], objects[i])
			}
		}
	})
}

func TestOdd(t *testing.T) {
	for doc, want := range map[string]bool{
		`{"a":"x","b":1}`:         false,
		`{"a":"x","a":"y"}`:       true, // given twice
		`{"A":"x"}`:               true, // encoding/json folds case
		`{"\u0061":"x"}`:          true, // a once unescaped
		`{"\u0062x":"x"}`:         true, // escaped keys are never matched here
		`{"z":{"a":1,"a":2}}`:     false,
		`{"z":"x","Z":"y"}`:       false,
		`{"b":{"A":1},"c":false}`: false,
	} {
		odd, err := Object([]byte(doc), sampleNames, make([][]byte, 3))
		if err != nil || odd != want {
			t.Errorf("Object(%s): odd %v, %v; want %v", doc, odd, err, want)
		}
	}
}

func TestErrors(t *testing.T) {
	for doc, want := range map[string]error{
		`[]`: ErrType, `"x"`: ErrType, `1`: ErrType, `{"a":1`: ErrSyntax, `{} {}`: ErrSyntax, ``: ErrSyntax,
		`null`: nil, `{}`: nil,
	} {
		if _, err := Object([]byte(doc), sampleNames, make([][]byte, 3)); err != want {
			t.Errorf("Object(%s): %v, want %v", doc, err, want)
		}
	}
	for doc, want := range map[string]error{
		`{}`: ErrType, `"x"`: ErrType, `[1`: ErrSyntax, `[] []`: ErrSyntax, `null`: nil, `[]`: nil, `[1,"x",null]`: nil,
	} {
		if err := Array([]byte(doc), sampleNames, func([]byte, [][]byte, bool) {}); err != want {
			t.Errorf("Array(%s): %v, want %v", doc, err, want)
		}
	}
}

func TestString(t *testing.T) {
	for raw, want := range map[string]string{
		`"plain"`: "plain", `"é"`: "é", `"a\nb"`: "a\nb", `"\u00e9x"`: "éx", "\"\xff\"": "\ufffd", `null`: "",
		`""`: "", `"` + strings.Repeat("x", 100) + `é"`: strings.Repeat("x", 100) + "é",
	} {
		got, ok := String([]byte(raw))
		if !ok || got != want {
			t.Errorf("String(%s) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	if got, ok := String(nil); !ok || got != "" {
		t.Errorf("String(nil) = %q, %v", got, ok)
	}
	for _, raw := range []string{`1`, `true`, `{}`, `[]`} {
		if _, ok := String([]byte(raw)); ok {
			t.Errorf("String(%s) accepted", raw)
		}
	}
}
