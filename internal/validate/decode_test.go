package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecoding(t *testing.T) {
	v := newValidator(t, Options{})
	pd := `{"id":"x","input_descriptors":[{"id":"a","constraints":{"fields":[{"path":["$.a"],"filter":{"type":"string","type":"number"}}]}}]}`
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"empty", ``, []string{"body: must be a JSON object, got nothing"}},
		{"spaces", "  \n", []string{"body: must be a JSON object, got nothing"}},
		{"array", `[]`, []string{"body: must be a JSON object"}},
		{"string", `"x"`, []string{"body: must be a JSON object"}},
		{"null", `null`, []string{"body: must be a JSON object"}},
		{"syntax", `{"isShortenUrl": tru}`, []string{"body: invalid JSON near byte 17: invalid literal (true, false or null expected)"}},
		{"bad escape", `{"label": "a\qb"}`, []string{"body: invalid JSON near byte 12: invalid escape in a string"}},
		{"bad unicode escape", `{"label": "\u12G4"}`, []string{`body: invalid JSON near byte 13: invalid \u escape`}},
		{"control character", "{\"label\": \"a\tb\"}", []string{"body: invalid JSON near byte 12: control character in a string (escape it)"}},
		{"leading zero", `{"label": 01}`, []string{"body: invalid JSON near byte 11: ',' or '}' expected in an object"}},
		{"bare minus", `{"label": -}`, []string{"body: invalid JSON near byte 11: invalid number"}},
		{"no fraction digits", `{"label": 1.}`, []string{"body: invalid JSON near byte 12: invalid number"}},
		{"no exponent digits", `{"label": 1e+}`, []string{"body: invalid JSON near byte 13: invalid number"}},
		{"unquoted key", `{label: 1}`, []string{"body: invalid JSON near byte 1: object key expected (a string)"}},
		{"missing colon", `{"label" 1}`, []string{"body: invalid JSON near byte 9: ':' expected after an object key"}},
		{"array separator", `{"emailId": ["a" "b"]}`, []string{"body: invalid JSON near byte 17: ',' or ']' expected in an array"}},
		{"single quotes", `{"label": 'x'}`, []string{`body: invalid JSON near byte 10: unexpected character '\'' where a value belongs`}},
		{"truncated literal", `{"isShortenUrl": fal`, []string{"body: invalid JSON: unexpected end of input"}},
		{"truncated", `{"isShortenUrl": true`, []string{"body: invalid JSON: unexpected end of input"}},
		{"truncated in array", `{"emailId": [`, []string{"body: invalid JSON: unexpected end of input"}},
		{"trailing object", `{"isShortenUrl": true} {}`, []string{"body: unexpected data after the JSON object"}},
		{"trailing garbage", `{"isShortenUrl": true}x`, []string{"body: unexpected data after the JSON object"}},
		{"trailing comma", `{"isShortenUrl": true,}`, []string{"body: invalid JSON near byte 22: object key expected (a string)"}},
		{"invalid utf-8", "{\"label\": \"\xff\"}", []string{"body: is not valid UTF-8"}},
		{"too deep", `{"comment":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, []string{"body: nested deeper than 64 levels"}},
		{"duplicate top-level", `{"isShortenUrl": true, "isShortenUrl": false, "proofFormats": {"indy": {}}}`, nil},
		{"duplicate deep in pd", `{"isShortenUrl": true, "proofFormats": {}, "presentationDefinition": ` + pd + `}`, nil},
		{"duplicate escaped", `{"isShortenUrl": true, "isShortenUr\u006c": true, "proofFormats": {}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.OOB("presentationExchange", []byte(tt.body))
			got := problems(t, err)
			if tt.want != nil {
				sameProblems(t, got, tt.want)
			}
		})
	}

	// Duplicates are reported with their path, together with the other
	// problems of the body.
	t.Run("duplicate paths", func(t *testing.T) {
		_, err := v.OOB("presentationExchange", []byte(`{"isShortenUrl": true, "isShortenUrl": false, "proofFormats": {}, "presentationDefinition": `+pd+`}`))
		sameProblems(t, problems(t, err), []string{
			"isShortenUrl: duplicate key",
			"presentationDefinition.input_descriptors[0].constraints.fields[0].filter.type: duplicate key",
		})
		_, err = v.OOB("indy", []byte(`{"isShortenUrl": true, "proofFormats": {"indy": {"name": "a", "name": "b", "version": "1", "requested_attributes": {"x": {"name": "n", "restrictions": [{"schema_name": "s", "schema_name": "t"}]}}}}, "label": 1}`))
		sameProblems(t, problems(t, err), []string{
			"proofFormats.indy.name: duplicate key",
			"proofFormats.indy.requested_attributes.x.restrictions[0].schema_name: duplicate key",
			"label: must be a string",
		})
		_, err = v.OOB("indy", []byte(`{"isShortenUrl": true, "isShortenUr\u006c": true, "proofFormats": {"indy": {"name": "a", "version": "1", "requested_attributes": {"x": {"name": "n"}}}}}`))
		sameProblems(t, problems(t, err), []string{"isShortenUrl: duplicate key"})
	})
}

// TestManyProblems checks that problems anywhere in the body are all
// reported together, not only the first.
func TestManyProblems(t *testing.T) {
	v := newValidator(t, Options{})
	body := with(t, indyBody,
		del("isShortenUrl"),
		set("protocolVersion", "v3"),
		set(ri+".restrictions.0.schema_id", "nope"),
		set(rp+".p_type", "=="),
		set("emailId", raw(`["a@example.com","A@example.com"]`)),
		set("autoAcceptProof", "sometimes"),
		set("goalCode", strings.Repeat("g", 200)),
		set("extra", 1),
	)
	_, err := v.OOB("indy", []byte(body))
	got := problems(t, err)
	sameProblems(t, got, []string{
		"isShortenUrl: is required (true or false)",
		`protocolVersion: must be "v1" or "v2"`,
		ri + ".restrictions[0].schema_id: not a schema identifier (<did>:2:<name>:<version>, a DID URL or a URI)",
		rp + `.p_type: must be one of ">=", ">", "<=", "<"`,
		"emailId[1]: duplicate of emailId[0]",
		`autoAcceptProof: must be "always", "contentApproved" or "never" (or {} / null for the agent's default)`,
		"goalCode: must be at most 128 characters",
		"extra: unknown field",
	})
	if want := "8 problems: "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Error() = %q, want prefix %q", err.Error(), want)
	}

	// With an unknown requestType, both the indy request and the
	// definition sent are still checked.
	body = with(t, indyBody, set(ri+".name", ""), set("presentationDefinition", raw(`{"input_descriptors":[]}`)))
	_, err = v.OOB("oops", []byte(body))
	sameProblems(t, problems(t, err), []string{
		`requestType: must be "indy" or "presentationExchange"`,
		ri + ".name: must not be empty",
		"presentationDefinition.input_descriptors: a proof request must ask for at least one input descriptor",
	})
}

// FuzzDecode holds the parser to encoding/json: it accepts exactly the
// valid JSON objects and reads the same tree from them (duplicates aside,
// where encoding/json keeps the last value and so do we).
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		indyBody, peBody, `{}`, `{"a":"\ud83d\ude00\ud800x\udc00"}`, `{"a":[1,-0.5e+3,true,false,null,{}]}`,
		`{"a":1,"a":2}`, "{\"a\":\"\\u00e9\xc3\xa9\"}", `{"a":01}`, `{"a":"\u0000"}`, ` {"a" : [ ] } `,
		// past smallObject keys, duplicates are found through a map
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"a":{"b":1,"b":[2]},"q":0}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var c collector
		got := decodeObject(body, &c)
		var want any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		stdErr := dec.Decode(&want)
		if stdErr == nil && dec.InputOffset() != int64(len(bytes.TrimRight(body, " \t\r\n"))) {
			stdErr = errors.New("trailing data")
		}
		wantObj, isObj := want.(map[string]any)
		valid := stdErr == nil && isObj && utf8.Valid(body) && depthOK(want, 0)
		if valid != (got != nil) {
			t.Fatalf("parser accepts %v, encoding/json %v (%v), problems %q", got != nil, valid, stdErr, c.errors())
		}
		if valid && !reflect.DeepEqual(got, wantObj) {
			t.Fatalf("trees differ:\n got  %#v\n want %#v", got, wantObj)
		}
	})
}

func depthOK(v any, depth int) bool {
	switch t := v.(type) {
	case map[string]any:
		if depth >= maxDepth {
			return false
		}
		for _, e := range t {
			if !depthOK(e, depth+1) {
				return false
			}
		}
	case []any:
		if depth >= maxDepth {
			return false
		}
		for _, e := range t {
			if !depthOK(e, depth+1) {
				return false
			}
		}
	}
	return true
}
