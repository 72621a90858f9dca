package validate

import (
	"strings"
	"testing"
)

// refRefused is what a reference inside a filter is told, after its path.
const refRefused = "a filter must not refer to a schema, not even to a part of itself: a reference can make matching cost work exponential in the prover's data; write the schema out"

// TestFilterBoundsAtCreate: what would make matching a filter cost the
// local verifier more than the filter's size times the prover's data is
// refused at create time, with a 400 naming the keyword's path: a
// reference ($ref, even to the filter itself: the 62-byte
// {"items":{"anyOf":[{"$ref":"#"},{"$ref":"#"}]}} costs 2^depth schema
// evaluations on a value depth arrays deep, 12 s at 20 levels), and a
// number the schema library would read as a fraction of a million digits.
// The filters of DIF's examples, and numbers a filter compares (ages,
// scores, dates as epoch seconds, wide integers), pass.
func TestFilterBoundsAtCreate(t *testing.T) {
	v := newValidator(t, Options{})
	// The filter is written into the body as text: the edit helpers
	// decode numbers as float64, which would round them.
	const peFilter = `{"type": "string", "pattern": "^[A-Z]"}`
	if !strings.Contains(peBody, peFilter) {
		t.Fatal("peBody's filter changed")
	}
	tests := []struct {
		name   string
		filter string
		want   []string // nil: valid
	}{
		{"self-reference, exponential", `{"type":"array","items":{"anyOf":[{"$ref":"#"},{"$ref":"#"}]}}`,
			[]string{fl + ".filter.items.anyOf[0].$ref: " + refRefused}},
		{"chain of parts referring twice", `{"definitions":{"a":{"anyOf":[{"$ref":"#/definitions/b"},{"$ref":"#/definitions/b"}]},"b":{"type":"string"}},"allOf":[{"$ref":"#/definitions/a"}]}`,
			[]string{fl + ".filter.allOf[0].$ref: " + refRefused}},
		{"reference to the draft's metaschema", `{"$ref":"http://json-schema.org/draft-07/schema#"}`,
			[]string{fl + ".filter.$ref: " + refRefused}},
		{"2019-09 $recursiveRef", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"items":{"$recursiveRef":"#"}}`,
			[]string{fl + ".filter.items.$recursiveRef: " + refRefused}},
		{"2020-12 $dynamicRef", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$dynamicAnchor":"n","items":{"$dynamicRef":"#n"}}`,
			[]string{fl + ".filter.items.$dynamicRef: " + refRefused}},
		{"2020-12 $defs and $ref", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s"}}}`,
			[]string{fl + ".filter.properties.a.$ref: " + refRefused}},
		{"$ref as data", `{"type":"object","properties":{"$ref":{"enum":[{"$ref":"#"}]}},"required":["$ref"]}`, nil},
		{"huge exponent", `{"type":"integer","minimum":1e999999}`,
			[]string{fl + ".filter.minimum: the number 1e999999 has more than 100 digits or an exponent past ±400"}},
		{"huge negative exponent", `{"type":"number","multipleOf":1e-999999}`,
			[]string{fl + ".filter.multipleOf: the number 1e-999999 has more than 100 digits or an exponent past ±400"}},
		{"101 digits", `{"const":1` + strings.Repeat("0", 100) + `}`,
			[]string{fl + ".filter.const: the number 1000000000000000000000000000000000000... has more than 100 digits or an exponent past ±400"}},
		{"an age", `{"type":"integer","minimum":18}`, nil},
		{"the largest double", `{"type":"number","maximum":1.7976931348623157e308,"exclusiveMinimum":4.9e-324}`, nil},
		{"a 256-bit integer", `{"type":"integer","maximum":115792089237316195423570985008687907853269984665640564039457584007913129639935}`, nil},
		{"DIF v2 number filter", `{"type":"number","minimum":1000000}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := strings.Replace(peBody, peFilter, tt.filter, 1)
			_, err := v.OOB("presentationExchange", []byte(body))
			sameProblems(t, problems(t, err), tt.want)
		})
	}
}

// TestDefinitionNumbersBounded: a definition's numbers outside its filters
// are read by the schema library as exact fractions too (a submission
// requirement's count of 1e999999 cost 44 ms; fifty in a 2.7 KB body, 2.2
// s): past pefilter's bounds they are refused, each named where it is,
// before any schema reads them.
func TestDefinitionNumbersBounded(t *testing.T) {
	v := newValidator(t, Options{})
	body := peBodyWith(`"input_descriptors":[{"id":"d","group":["A"],"constraints":{}}],"submission_requirements":[` +
		`{"rule":"pick","count":1e999999,"from":"A"},{"rule":"pick","min":1,"max":2e-999,"from":"A"}]`)
	_, err := v.OOB("presentationExchange", []byte(body))
	sameProblems(t, problems(t, err), []string{
		"presentationDefinition.submission_requirements[0].count: the number 1e999999 has more than 100 digits or an exponent past ±400",
		"presentationDefinition.submission_requirements[1].max: the number 2e-999 has more than 100 digits or an exponent past ±400",
	})
	ok := peBodyWith(`"input_descriptors":[{"id":"d","group":["A"],"constraints":{}}],"submission_requirements":[{"rule":"pick","count":1,"from":"A"}]`)
	if _, err := v.OOB("presentationExchange", []byte(ok)); err != nil {
		t.Fatalf("a count of 1: %v", err)
	}
}
