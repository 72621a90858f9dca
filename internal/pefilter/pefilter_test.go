package pefilter

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestDateBounds(t *testing.T) {
	tests := []struct {
		name   string
		filter string
		ok     []any
		not    []any
	}{
		{"v1 maximum, date", `{"type":"string","format":"date","maximum":"1999-05-16"}`,
			[]any{"1999-05-16", "1980-01-01"}, []any{"1999-05-17", "2001-01-01", "16.05.1999", "1999-5-16"}},
		{"v1 minimum, date", `{"type":"string","format":"date","minimum":"1999-05-16"}`,
			[]any{"1999-05-16", "2020-02-29"}, []any{"1999-05-15", 19990516.0}},
		{"v1 exclusive bounds", `{"type":"string","format":"date","exclusiveMinimum":"2000-01-01","exclusiveMaximum":"2000-01-03"}`,
			[]any{"2000-01-02"}, []any{"2000-01-01", "2000-01-03"}},
		{"v2 formatMaximum, date-time", `{"type":"string","format":"date-time","formatMaximum":"2020-04-16T00:00:00Z"}`,
			[]any{"2020-04-15T23:59:59Z", "2020-04-16T02:00:00+02:00"}, []any{"2020-04-16T00:00:01Z", "2020-04-16"}},
		{"v2 formatExclusiveMinimum", `{"type":"string","format":"date","formatExclusiveMinimum":"2000-01-01"}`,
			[]any{"2000-01-02"}, []any{"2000-01-01"}},
		{"nested in properties", `{"type":"object","properties":{"dob":{"type":"string","format":"date","maximum":"1999-05-16"}}}`,
			[]any{map[string]any{"dob": "1990-01-01"}}, []any{map[string]any{"dob": "2000-01-01"}}},
		{"numbers keep their meaning", `{"type":"number","minimum":1000000}`,
			[]any{1e6, 2e6}, []any{999999.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := CompileJSON([]byte(tt.filter))
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			for _, v := range tt.ok {
				if err := f.Validate(v); err != nil {
					t.Errorf("%v: %v, want a match", v, err)
				}
			}
			for _, v := range tt.not {
				if f.Match(v) {
					t.Errorf("%v matches, want no match", v)
				}
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, filter string
		bound        string // BoundError pointer, or "" for a compiler error
		want         string
	}{
		{"string minimum without a date format", `{"type":"string","minimum":"1999-05-16"}`, "", "number"},
		{"bound that is no date", `{"type":"string","format":"date","maximum":"1999-5-16"}`, "/maximum", `"1999-5-16" is not a date (YYYY-MM-DD)`},
		{"v2 bound without format", `{"type":"string","formatMinimum":"1999-05-16"}`, "/formatMinimum", `needs "format"`},
		{"v2 bound not a string", `{"type":"string","format":"date","formatMinimum":5}`, "/formatMinimum", "must be a date string"},
		{"v1 and v2 spelling of one bound", `{"type":"string","format":"date","minimum":"1999-05-16","formatMinimum":"1999-05-16"}`, "/minimum", "given twice"},
		{"nested bound", `{"properties":{"a/b":{"format":"date-time","minimum":"yesterday"}}}`, "/properties/a~1b/minimum", "RFC 3339"},
		{"bad regex", `{"type":"string","pattern":"(["}`, "", "pattern"},
		{"outside reference", `{"$ref":"https://example.com/s.json"}`, "", "disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompileJSON([]byte(tt.filter))
			if err == nil {
				t.Fatal("compiled, want an error")
			}
			var be *BoundError
			if isBound := errors.As(err, &be); isBound != (tt.bound != "") || (isBound && be.Pointer != tt.bound) {
				t.Fatalf("error %v (%T), want bound error at %q", err, err, tt.bound)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
	var sve *jsonschema.SchemaValidationError
	if _, err := CompileJSON([]byte(`{"type":"string","minimum":"1999-05-16"}`)); !errors.As(err, &sve) {
		t.Errorf("metaschema error %T, want *jsonschema.SchemaValidationError", err)
	}
}

// TestV1Fixtures compiles every filter of the DIF v1 date-filter examples
// and checks the date bounds' meaning on values either side of them.
func TestV1Fixtures(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/presentation-exchange/v1/*.json")
	if len(files) != 3 {
		t.Fatalf("found %d v1 fixtures, want 3", len(files))
	}
	dated := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			PD struct {
				InputDescriptors []struct {
					Constraints struct {
						Fields []struct {
							Filter json.RawMessage `json:"filter"`
						} `json:"fields"`
					} `json:"constraints"`
				} `json:"input_descriptors"`
			} `json:"presentation_definition"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, d := range doc.PD.InputDescriptors {
			for _, fld := range d.Constraints.Fields {
				flt, err := CompileJSON(fld.Filter)
				if err != nil {
					t.Fatalf("%s: filter %s: %v", f, fld.Filter, err)
				}
				var bound struct {
					Format  string `json:"format"`
					Minimum any    `json:"minimum"`
					Maximum any    `json:"maximum"`
				}
				_ = json.Unmarshal(fld.Filter, &bound)
				if bound.Format != "date" {
					continue
				}
				dated++
				if s, ok := bound.Maximum.(string); ok {
					if !flt.Match(s) || !flt.Match("1970-01-01") || flt.Match("2099-01-01") {
						t.Errorf("%s: maximum %s not applied as a date", f, s)
					}
				}
				if s, ok := bound.Minimum.(string); ok {
					if !flt.Match(s) || flt.Match("1970-01-01") || !flt.Match("2099-01-01") {
						t.Errorf("%s: minimum %s not applied as a date", f, s)
					}
				}
			}
		}
	}
	if dated < 5 {
		t.Errorf("found %d date filters in the v1 fixtures, want 5", dated)
	}
}
