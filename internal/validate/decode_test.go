package validate

import (
	"strings"
	"testing"
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
		{"syntax", `{"isShortenUrl": tru}`, []string{"body: invalid JSON near byte 18: invalid character '}' in literal true (expecting 'e')"}},
		{"truncated", `{"isShortenUrl": true`, []string{"body: invalid JSON: unexpected end of input"}},
		{"truncated in array", `{"emailId": [`, []string{"body: invalid JSON: unexpected end of input"}},
		{"trailing object", `{"isShortenUrl": true} {}`, []string{"body: unexpected data after the JSON object"}},
		{"trailing garbage", `{"isShortenUrl": true}x`, []string{"body: unexpected data after the JSON object"}},
		{"trailing comma", `{"isShortenUrl": true,}`, []string{"body: invalid JSON near byte 22: invalid character '}' looking for beginning of object key string"}},
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
