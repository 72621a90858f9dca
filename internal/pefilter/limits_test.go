package pefilter

import (
	"encoding/json"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func decode(t testing.TB, s string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		t.Fatalf("%.80s: %v", s, err)
	}
	return v
}

// nested is levels levels of nesting: "not" around {}.
func nested(levels int) string {
	return strings.Repeat(`{"not":`, levels-1) + `{}` + strings.Repeat(`}`, levels-1)
}

// chain is depth levels of properties, each under a key of keyLen bytes,
// around leaf.
func chain(depth, keyLen int, leaf string) string {
	var b strings.Builder
	for d := range depth {
		key := strconv.Itoa(d) + "K"
		key += strings.Repeat("K", max(keyLen-len(key), 0))
		b.WriteString(`{"properties":{"` + key + `":`)
	}
	b.WriteString(leaf)
	b.WriteString(strings.Repeat("}}", depth))
	return b.String()
}

// leaves is an object of n properties, each the schema {}.
func leaves(n int) string {
	var b strings.Builder
	b.WriteString(`{"properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strconv.Itoa(i) + `":{}`)
	}
	b.WriteString(`}}`)
	return b.String()
}

func enum(n int) string {
	var b strings.Builder
	b.WriteString(`{"enum":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString(`]}`)
	return b.String()
}

// Measure counts what the limits count: the JSON's bytes written
// compactly, its values, their pointers' bytes, and patterns expanded.
func TestMeasure(t *testing.T) {
	for _, tc := range []struct {
		filter string
		want   Size
	}{
		{`{}`, Size{Bytes: 2, Values: 1}},
		// /a (2), /a/b (4), /a/b/0 and /a/b/1 (6 each)
		{`{"a":{"b":[1,2]}}`, Size{Bytes: 17, Values: 5, PathBytes: 18}},
		// /a~1b~0 (7), /c (2)
		{`{"a/b~":true,"c":null}`, Size{Bytes: 22, Values: 3, PathBytes: 7 + 2}},
		// a concatenation (1) of ^ (1), a{10} (1+10), (bc){2,5} (1+5*(1+2)), $ (1)
		{`{"pattern":"^a{10}(bc){2,5}$"}`, Size{Bytes: 30, Values: 2, PathBytes: 8, PatternSize: 1 + 1 + 11 + 16 + 1}},
		// /patternProperties (18), /patternProperties/x{100} (25), …/y (20)
		{`{"patternProperties":{"x{100}":{},"y":{}}}`, Size{Bytes: 42, Values: 4, PathBytes: 18 + 25 + 20, PatternSize: 101 + 1}},
	} {
		got, err := Measure(decode(t, tc.filter))
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.filter, got, err, tc.want)
		}
	}
}

// A filter at each limit compiles; one past it is refused with a
// *LimitError, before the compiler sees it.
func TestLimits(t *testing.T) {
	longKey := func(n int) string { return `{"properties":{"` + strings.Repeat("k", n) + `":{}}}` }
	long := func(n int) string { return `{"const":"` + strings.Repeat("x", n-len(`{"const":""}`)) + `"}` }
	patterns := func(n int) string {
		return `{"allOf":[` + strings.Repeat(`{"pattern":"a{1000}"},`, n-1) + `{"pattern":"a{1000}"}]}`
	}
	for _, tc := range []struct {
		name     string
		ok, over string
		message  string
	}{
		{"key", longKey(MaxKeyBytes), longKey(MaxKeyBytes + 1), "has a key of 257 bytes: a filter's keys must be at most 256 bytes"},
		{"depth", nested(MaxDepth), nested(MaxDepth + 1), "nested deeper than 32 levels"},
		{"bytes", long(MaxBytes), long(MaxBytes + 1), "must be at most 16384 bytes of JSON"},
		{"values", enum(MaxValues - 2), enum(MaxValues - 1), "must have at most 1024 JSON values (each filter and every value inside it)"},
		{"paths", chain(8, 250, leaves(20)), chain(8, 250, leaves(40)), "must have at most 65536 bytes of paths"},
		{"patterns", patterns(4), patterns(5), "must have at most 4096 characters of regular expressions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := CompileJSON([]byte(tc.ok)); err != nil {
				t.Errorf("at the limit: %v", err)
			}
			_, err := CompileJSON([]byte(tc.over))
			var le *LimitError
			if !errors.As(err, &le) {
				t.Fatalf("past the limit: %v (%T), want a *LimitError", err, err)
			}
			if !strings.HasPrefix(le.Message, tc.message) {
				t.Errorf("past the limit: %q, want %q", le.Message, tc.message)
			}
		})
	}
}

// compileCost is what Compile allocates for filter, and its error.
func compileCost(t testing.TB, filter string) (uint64, error) {
	doc := decode(t, filter)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Compile(doc)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, err
}

// A filter within the limits costs a bounded amount to compile, however
// its bytes are spent; one past them costs a small multiple of its size.
// (Before: a 17 KB filter of 30 levels of 256-byte keys over 1000
// properties allocated 75 MB, 4355 times its size; 100 patterns a{1000}
// in 2.2 KB, 23 MB.)
func TestCompileCostIsBounded(t *testing.T) {
	const (
		bound  = 8 << 20 // bytes, for any filter within the limits
		factor = 16      // bytes per byte of a filter refused
	)
	for _, tc := range []struct{ name, filter string }{
		{"many values", leaves(MaxValues/2 - 2)},
		{"many subschemas", `{"items":[{}` + strings.Repeat(`,{}`, MaxValues-3) + `]}`},
		{"all at once", `{"allOf":[{"pattern":"a{1000}"},{"pattern":"b{1000}"},{"pattern":"c{1000}"},{"pattern":"d{1000}"},` +
			chain(10, 200, leaves(10)) + `,{"items":[{}` + strings.Repeat(`,{}`, MaxValues-100) + `]}]}`},
		{"long keys deep, many values under them", chain(14, 100, leaves(20))},
		{"long keys deep", chain(15, MaxKeyBytes, `{}`)},
		{"patterns", `{"allOf":[` + strings.Repeat(`{"pattern":"a{1000}"},`, 3) + `{"pattern":"a{1000}"}]}`},
		{"past: long keys deep", chain(30, 5000, `{}`)},
		{"past: long keys deep, many values under them", chain(30, 256, leaves(1000))},
		{"past: many values", leaves(4000)},
		{"past: patterns", `{"allOf":[` + strings.Repeat(`{"pattern":"a{1000}"},`, 99) + `{"pattern":"a{1000}"}]}`},
		{"past: deep", nested(2000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bytes, err := compileCost(t, tc.filter)
			t.Logf("%d bytes of filter, %d allocated (%.0f times): %v", len(tc.filter), bytes, float64(bytes)/float64(len(tc.filter)), err)
			var le *LimitError
			if strings.HasPrefix(tc.name, "past:") {
				if !errors.As(err, &le) {
					t.Fatalf("%v (%T), want a *LimitError", err, err)
				}
				if bytes > factor*uint64(len(tc.filter)) {
					t.Errorf("refused, %d bytes allocated %d, more than %d times", len(tc.filter), bytes, factor)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if bytes > bound {
				t.Errorf("%d bytes allocated, more than %d", bytes, bound)
			}
		})
	}
}

// rewrite formats a pointer only for an error: walking a deep filter with
// long keys allocates what the copy takes, not a pointer per value.
// (Before: the pointer of every value, 60 levels of 4000-byte keys
// allocated 15 MB for a 240 KB filter.)
func TestRewriteIsLinear(t *testing.T) {
	filter := chain(60, 4000, `{"type":"string","format":"date","maximum":"2000-01-01"}`)
	doc := decode(t, filter)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var ptr pointer
	_, err := rewrite(doc, &ptr)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	bytes := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes of filter, %d allocated", len(filter), bytes)
	if bytes > 2*uint64(len(filter)) {
		t.Errorf("%d bytes of filter, %d allocated", len(filter), bytes)
	}

	// The pointer of an error deep down is still exact.
	_, err = rewrite(decode(t, chain(3, 3, `{"items":[{},{"format":"date","maximum":"x"}]}`)), &ptr)
	var be *BoundError
	if !errors.As(err, &be) || be.Pointer != "/properties/0KK/properties/1KK/properties/2KK/items/1/maximum" {
		t.Errorf("error %v", err)
	}
	if len(ptr.toks) != 0 {
		t.Errorf("pointer left at %q", ptr.String())
	}
}

// The limit reported is the first the whole filter goes past, in a fixed
// order, however Go orders its maps.
func TestLimitReportedIsStable(t *testing.T) {
	filter := `{"a":` + nested(40) + `,"` + strings.Repeat("k", 300) + `":` + enum(2000) + `,"p":{"pattern":"a{1000}b{1000}c{1000}d{1000}e{1000}"}}`
	for range 50 {
		_, err := Measure(decode(t, filter))
		if err == nil || err.Error() != "filter: nested deeper than 32 levels" {
			t.Fatalf("%v", err)
		}
	}
	filter = `{"b":` + enum(2000) + `,"a":{"` + strings.Repeat("k", 300) + `":{}}}`
	for range 50 {
		_, err := Measure(decode(t, filter))
		if err == nil || err.Error() != "filter: has a key of 300 bytes: a filter's keys must be at most 256 bytes" {
			t.Fatalf("%v", err)
		}
	}
}

// FuzzCompile: Measure and Compile never panic, agree on the limits, and
// a filter within them weighs no more than its JSON.
func FuzzCompile(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"type":"string","format":"date","maximum":"1999-05-16"}`, `{"pattern":"a{3}(b|c){2,}"}`,
		`{"properties":{"a/b~c":{"items":[{"$ref":"#/properties/a~1b~0c"}]}}}`, nested(40), `{"patternProperties":{"(":{}}}`,
		`[1,"x",null,true,1.5e300]`, `{"allOf":[{"not":{"enum":[1,2,{"a":[]}]}}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
		if err != nil {
			return
		}
		size, merr := Measure(doc)
		_, cerr := Compile(doc)
		var le *LimitError
		if (merr != nil) != errors.As(cerr, &le) {
			t.Fatalf("Measure %v, Compile %v", merr, cerr)
		}
		if merr != nil {
			return
		}
		if compact, err := json.Marshal(doc); err == nil && size.Bytes > len(compact) {
			t.Fatalf("%d bytes counted, %d of JSON", size.Bytes, len(compact))
		}
	})
}
