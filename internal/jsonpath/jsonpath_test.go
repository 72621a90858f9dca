package jsonpath

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func decode(t testing.TB, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

const doc = `{
	"@context": ["https://www.w3.org/2018/credentials/v1"],
	"type": ["VerifiableCredential", "License"],
	"issuer": {"id": "did:example:issuer"},
	"credentialSubject": {"id": "did:example:holder", "name": "Alice", "age": 42,
		"account": [{"id": 1, "route": "a", "active": true}, {"id": 2, "route": "b", "active": false}, {"id": 3}]},
	"vc": {"credentialSubject": {"name": "Bob"}},
	"odd key": "x", "quote'key": "q"
}`

func TestParsePlain(t *testing.T) {
	for _, ok := range []string{"$", "$.verifiableCredential[0]", "$.a.b", "$['a']", `$["a b"]`, "$['@context'][0]", "$.vp.verifiableCredential[12]", "$.a-b.c_d", "$.ünïcode"} {
		if _, err := ParsePlain(ok); err != nil {
			t.Errorf("ParsePlain(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a", "$..a", "$.*", "$[*]", "$['a','b']", "$[0:2]", "$[?(@.a)]", "$[-1]", "$.", "$[", "$['a'", "$[a]", "$..*..*..*", "$ .a", "$.a[1e3]",
		"$" + strings.Repeat(".a", 128), "$[1234567890]"} {
		if _, err := ParsePlain(bad); err == nil {
			t.Errorf("ParsePlain(%q) accepted", bad)
		}
	}
}

func TestCompileBound(t *testing.T) {
	for _, ok := range []string{"$..name", "$.credentialSubject.account[*].id", "$.credentialSubject[?(@.type == 'x')].id", "$..a[?(@.b>1)]",
		"$['a','b']", "$[0,1,2]", "$[1:3]", "$[::-1]", "$.a[-1]", "$[?(@.a && (@.b || !@.c))]", "$[?(@['x y'][0] != null)]"} {
		if _, err := Compile(ok); err != nil {
			t.Errorf("Compile(%q): %v", ok, err)
		}
	}
	for _, bad := range []struct{ path, want string }{
		{"$..*..*..*", "recursive descent"},
		{"$..a..b", "recursive descent"},
		{"$['a','b','c','d']['a','b','c','d','e']", "branches"},
		{"$[?(@.a)][?(@.a)][?(@.a)][?(@.a)][?(@.a)]", "filters"},
		{"$[?(@.a =~ /x/)]", "regular expressions"},
		{"$[?($.a)]", "current node"},
		{"$[?(@..a)]", "inside a filter"},
		{"$[?(" + strings.Repeat("(", 10) + "@.a" + strings.Repeat(")", 10) + ")]", "nests"},
		{"$[?(" + strings.Repeat("@.a && ", 20) + "@.a)]", "operators"},
		{"$[(@.length-1)]", "unexpected"},
		{"$.a" + strings.Repeat("[0]", 40), "segments"},
		{"$" + strings.Repeat(".a", 300), "longer than"},
		{"$[::0]", "step"},
	} {
		_, err := Compile(bad.path)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Compile(%.40q) = %v, want an error with %q", bad.path, err, bad.want)
		}
	}
}

func TestGet(t *testing.T) {
	d := decode(t, doc)
	tests := []struct {
		path string
		want string // JSON of the results
	}{
		{"$", ""},
		{"$.credentialSubject.name", `["Alice"]`},
		{"$['odd key']", `["x"]`},
		{`$["quote'key"]`, `["q"]`},
		{`$['quote\'key']`, `["q"]`},
		{"$.type[1]", `["License"]`},
		{"$.type[-1]", `["License"]`},
		{"$.type[2]", `null`},
		{"$.credentialSubject.account[*].id", `[1,2,3]`},
		{"$.credentialSubject.account[0:2].route", `["a","b"]`},
		{"$.credentialSubject.account[::-1].id", `[3,2,1]`},
		{"$.credentialSubject.account[?(@.active == true)].id", `[1]`},
		{"$.credentialSubject.account[?(@.id > 1 && !@.active)].id", `[3]`}, // existence, not truth (RFC 9535),
		{"$.credentialSubject.account[?(@.route)].id", `[1,2]`},
		{"$.credentialSubject.account[?(@.route != 'a')].id", `[2,3]`},
		{"$..name", `["Alice","Bob"]`},
		{"$['issuer','vc'].id", `["did:example:issuer"]`},
		{"$.credentialSubject[?(@ >= 40)]", `[42]`},
		{"$.nothing.here", `null`},
	}
	for _, tt := range tests {
		p, err := Compile(tt.path)
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		got, err := p.Get(d, NewBudget(0, 0, time.Time{}))
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		if tt.want == "" {
			if len(got) != 1 || !reflect.DeepEqual(got[0], d) {
				t.Errorf("%s = %v", tt.path, got)
			}
			continue
		}
		b, _ := json.Marshal(got)
		if string(b) != tt.want {
			t.Errorf("%s = %s, want %s", tt.path, b, tt.want)
		}
	}
}

// deep is a document nested n levels: {"a":{"a":...[1,2]...}}.
func deep(n int) any {
	var v any = []any{json.Number("1"), json.Number("2")}
	for i := 0; i < n; i++ {
		v = map[string]any{"a": v, "b": []any{v}}
	}
	return v
}

// TestBudget: a costly path over a large document stops at its budget,
// with no recursion however deep the document.
func TestBudget(t *testing.T) {
	p, err := Compile("$..*")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Get(deep(40), NewBudget(10_000, 1_000_000, time.Time{})); !errors.Is(err, ErrBudget) {
		t.Fatalf("err = %v, want ErrBudget", err)
	}
	if _, err := p.Get(deep(6), NewBudget(1_000_000, 10, time.Time{})); !errors.Is(err, ErrTooMany) {
		t.Fatalf("err = %v, want ErrTooMany", err)
	}
	if _, err := p.Get(deep(40), NewBudget(1<<30, 1<<30, time.Now().Add(-time.Second))); !errors.Is(err, ErrDeadline) {
		t.Fatalf("err = %v, want ErrDeadline", err)
	}
	// 100 000 levels: a recursive evaluator would blow the stack.
	var v any = "x"
	for i := 0; i < 100_000; i++ {
		v = []any{v}
	}
	got, err := p.Get(v, NewBudget(1_000_000, 1_000_000, time.Time{}))
	if err != nil || len(got) != 100_000 {
		t.Fatalf("%d results, %v", len(got), err)
	}
	// One budget across evaluations.
	b := NewBudget(50, 0, time.Time{})
	q, _ := Compile("$.credentialSubject.account[*].id")
	d := decode(t, doc)
	n := 0
	for ; n < 100; n++ {
		if _, err := q.Get(d, b); err != nil {
			break
		}
	}
	if n == 0 || n == 100 {
		t.Fatalf("a shared budget of 50 visits allowed %d evaluations", n)
	}
}

// FuzzCompileGet: any path either fails to compile or evaluates within
// its budget, without panicking.
func FuzzCompileGet(f *testing.F) {
	for _, s := range []string{"$..name", "$.a[*].b", "$[?(@.a == 'x' || @.b < 3)]", "$[1:3:-1]", "$['a','b']", "$..*", "$[?(!(@.a))]"} {
		f.Add(s, `{"a":[{"a":1,"b":"x"}],"b":{"name":true}}`)
	}
	f.Fuzz(func(t *testing.T, path, docJSON string) {
		var d any
		dec := json.NewDecoder(bytes.NewReader([]byte(docJSON)))
		dec.UseNumber()
		if dec.Decode(&d) != nil {
			d = nil
		}
		if p, err := ParsePlain(path); err == nil {
			if _, err := p.Get(d, NewBudget(1000, 100, time.Time{})); err != nil && !errors.Is(err, ErrBudget) && !errors.Is(err, ErrTooMany) {
				t.Fatal(err)
			}
		}
		p, err := Compile(path)
		if err != nil {
			return
		}
		b := NewBudget(1000, 100, time.Time{})
		if _, err := p.Get(d, b); err != nil && !errors.Is(err, ErrBudget) && !errors.Is(err, ErrTooMany) {
			t.Fatal(err)
		}
		if b.Remaining() < 0 {
			t.Fatal("budget overspent")
		}
	})
}
