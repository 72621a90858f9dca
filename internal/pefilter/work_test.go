package pefilter

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestReferencesRefused: a filter refers to no schema, not even to a
// part of itself, however the draft spells it; a member named "$ref" (a
// property, or data in const or enum) is no reference. Compile tells the
// keyword's pointer.
func TestReferencesRefused(t *testing.T) {
	tests := []struct {
		name, filter string
		pointer      string // "" for a filter that compiles
	}{
		{"self-reference under anyOf", `{"type":"array","items":{"anyOf":[{"$ref":"#"},{"$ref":"#"}]}}`, "/items/anyOf/0/$ref"},
		{"to a definition", `{"definitions":{"s":{"type":"string"}},"$ref":"#/definitions/s"}`, "/$ref"},
		{"deep inside", `{"properties":{"a/b":{"items":[{},{"not":{"$ref":"#/properties"}}]}}}`, "/properties/a~1b/items/1/not/$ref"},
		{"to the metaschema", `{"$ref":"http://json-schema.org/draft-07/schema#"}`, "/$ref"},
		{"2019-09 $recursiveRef", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"additionalProperties":{"$recursiveRef":"#"}}`, "/additionalProperties/$recursiveRef"},
		{"2020-12 $dynamicRef", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$dynamicAnchor":"n","prefixItems":[{"$dynamicRef":"#n"}]}`, "/prefixItems/0/$dynamicRef"},
		{"2020-12 $ref beside keywords", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"s":{}},"type":"object","dependentSchemas":{"a":{"$ref":"#/$defs/s"}}}`, "/dependentSchemas/a/$ref"},
		{"a property named $ref", `{"properties":{"$ref":{"type":"string"}},"required":["$ref"]}`, ""},
		{"$ref as data", `{"const":{"$ref":"#"},"enum":[{"$ref":"#"}]}`, ""},
		{"unused definitions", `{"definitions":{"s":{"type":"string"}},"type":"string"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompileJSON([]byte(tt.filter))
			var re *RefError
			switch {
			case tt.pointer == "" && err != nil:
				t.Fatalf("Compile: %v, want it compiled", err)
			case tt.pointer != "" && !errors.As(err, &re):
				t.Fatalf("Compile: %v (%T), want a RefError at %s", err, err, tt.pointer)
			case tt.pointer != "" && re.Pointer != tt.pointer:
				t.Fatalf("RefError at %s, want %s", re.Pointer, tt.pointer)
			}
		})
	}
}

// TestMatchWithinMeter: a match is charged the filter's size times the
// value's before it starts, and is not started past what the meter has
// left; a pattern is charged its program's size times the string's
// length when it runs. A pattern within MaxPatternSize over a 400 KB
// string (1.6e9 regexp steps, ~16 s) is refused at once, and a refused
// pattern is not taken for a non-match (under "not" that would match).
func TestMatchWithinMeter(t *testing.T) {
	const work = 3_000_000
	long := strings.Repeat("ab", 200_000)
	big := []any{}
	for range 20_000 {
		big = append(big, map[string]any{"a": "x"})
	}
	tests := []struct {
		name     string
		filter   string
		v        any
		deadline time.Duration // from now; 0 for none
		want     bool
		err      error
	}{
		{"date bound", `{"type":"string","format":"date","maximum":"1999-05-16"}`, "1980-01-01", 0, true, nil},
		{"an age", `{"type":"integer","minimum":18}`, json.Number("42"), 0, true, nil},
		{"pattern over 400 KB", `{"type":"string","pattern":"[ab]{1000}[ab]{1000}[ab]{1000}[ab]{1000}c"}`, long, 0, false, ErrWork},
		{"refused pattern under not", `{"not":{"pattern":"[ab]{1000}[ab]{1000}[ab]{1000}[ab]{1000}c"}}`, long, 0, false, ErrWork},
		{"small pattern over 400 KB", `{"type":"string","pattern":"^[ab]+$"}`, long, 0, true, nil},
		{"large filter, large value", `{"items":{"anyOf":[` + strings.Repeat(`{"required":["b"]},`, 300) + `false]}}`, big, 0, false, ErrWork},
		{"past its deadline", `{"type":"string"}`, "x", -time.Second, false, ErrDeadline},
		{"a prover's regex too large", `{"type":"string","format":"regex"}`, strings.Repeat("a{1000}", 5), 0, false, nil},
		{"a prover's regex", `{"type":"string","format":"regex"}`, "^a{1000}$", 0, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := CompileJSON([]byte(tt.filter))
			if err != nil {
				t.Fatal(err)
			}
			var deadline time.Time
			if tt.deadline != 0 {
				deadline = time.Now().Add(tt.deadline)
			}
			m := NewMeter(work, deadline)
			start := time.Now()
			got, err := f.MatchWithin(tt.v, m)
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v", d)
			}
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Fatalf("MatchWithin: %v, %v; want %v, %v", got, err, tt.want, tt.err)
			}
			if tt.err != nil {
				// The meter stays stopped: the presentation's later
				// matches are not made either.
				if ok, err := f.MatchWithin("x", m); ok || !errors.Is(err, tt.err) {
					t.Fatalf("after the meter stopped: %v, %v", ok, err)
				}
			}
		})
	}
}

// TestMatchCharge: a match costs the filter's JSON values times the
// value's weight (one per value and key, one per 16 bytes of string).
func TestMatchCharge(t *testing.T) {
	f, err := CompileJSON([]byte(`{"type":"object","properties":{"age":{"type":"integer","minimum":18}}}`)) // 6 values
	if err != nil {
		t.Fatal(err)
	}
	m := NewMeter(1000, time.Time{})
	v := map[string]any{"age": json.Number("42"), "name": strings.Repeat("x", 32)} // 1 + (1+1) + (1+1+2)
	if ok, err := f.MatchWithin(v, m); !ok || err != nil {
		t.Fatalf("MatchWithin: %v, %v", ok, err)
	}
	if spent := 1000 - m.Remaining(); spent != 6*7 {
		t.Fatalf("spent %d, want %d", spent, 6*7)
	}
}

// TestCheckNumbers: a prover's number is read only within
// MaxNumberDigits digits and an exponent of MaxNumberExponent either way:
// "1e999999" (9 bytes) costs the schema library ~20 ms each time it reads
// it. Every double, and integers far wider than 64 bits, are within.
func TestCheckNumbers(t *testing.T) {
	for _, tt := range []struct {
		number string
		ok     bool
	}{
		{"18", true},
		{"-1.5e-10", true},
		{"1.7976931348623157e308", true},
		{"4.9e-324", true},
		{"115792089237316195423570985008687907853269984665640564039457584007913129639935", true},
		{"1E+0400", true},
		{"1e-00000000000000000000000000001", true},
		{"1e999999", false},
		{"1e401", false},
		{"-1e-401", false},
		{"1e000000000000000000000000401", false},
		{"1" + strings.Repeat("0", 100), false},
		{"0." + strings.Repeat("0", 99) + "1", false},
	} {
		err := CheckNumbers(map[string]any{"a": []any{"x", json.Number(tt.number)}})
		if (err == nil) != tt.ok {
			t.Errorf("%.40s: %v, want ok %v", tt.number, err, tt.ok)
		}
		var ne *NumberError
		if !tt.ok && (!errors.As(err, &ne) || ne.Pointer != "/a/1") {
			t.Errorf("%.40s: %v, want a NumberError at /a/1", tt.number, err)
		}
	}
	// The filter's own numbers are held to the same bounds.
	if _, err := CompileJSON([]byte(`{"type":"integer","minimum":1e999999}`)); !strings.Contains(err.Error(), "has a number past") {
		t.Errorf("Compile: %v, want a number past the bounds", err)
	}
}
