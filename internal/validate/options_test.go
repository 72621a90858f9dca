package validate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{"zero", Options{}, ""},
		{"explicit", Options{UnknownFields: "ignore", InputDescriptors: "strict", MaxRecipients: 3}, ""},
		{"unknown_fields", Options{UnknownFields: "drop"}, `unknown_fields: must be "reject" or "ignore", got "drop"`},
		{"input_descriptors", Options{InputDescriptors: "loose"}, `input_descriptors: must be "dif" or "strict", got "loose"`},
		{"max_recipients", Options{MaxRecipients: -1}, "max_recipients: must be positive, got -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.opts)
			if got := errString(err); got != tt.wantErr {
				t.Errorf("New: %q, want %q", got, tt.wantErr)
			}
		})
	}

	v := newValidator(t, Options{MaxRecipients: 2})
	_, err := v.OOB("indy", []byte(with(t, indyBody, set("emailId", raw(`["a@example.com","b@example.com","c@example.com"]`)))))
	sameProblems(t, problems(t, err), []string{"emailId: must list at most 2 recipients"})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestUnknownFields(t *testing.T) {
	unknowns := []edit{
		set("connectionId", "x"),
		set("proofFormats.anoncreds", raw(`{}`)),
		set("proofFormats.indy.nonce", "1234"),
		set(ri+".value", "x"),
		set(rp+".extra", true),
		set(ri+".non_revoked", raw(`{"from":1,"at":2}`)),
	}
	body := with(t, indyBody, unknowns...)
	tests := []struct {
		mode string
		want []string
	}{
		{"reject", []string{
			"connectionId: unknown field",
			"proofFormats.anoncreds: unknown field",
			"proofFormats.indy.nonce: unknown field",
			ri + ".value: unknown field",
			rp + ".extra: unknown field",
			ri + ".non_revoked.at: unknown field",
		}},
		{"ignore", nil},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			v := newValidator(t, Options{UnknownFields: tt.mode})
			req, err := v.OOB("indy", []byte(body))
			sameProblems(t, problems(t, err), tt.want)
			if tt.want == nil {
				// Ignored means dropped: nothing unknown reaches the agent.
				b, _ := json.Marshal(req.Indy)
				for _, k := range []string{`"nonce"`, `"value"`, `"extra"`, `"at"`} {
					if bytes.Contains(b, []byte(k)) {
						t.Errorf("ignored %s kept in %s", k, b)
					}
				}
			}
		})
	}

	// Ignoring unknown fields does not relax the restriction keys (an
	// unknown one would change the query) nor the DIF schema.
	v := newValidator(t, Options{UnknownFields: "ignore"})
	_, err := v.OOB("indy", []byte(with(t, indyBody, set(ri+".restrictions.0.schema", "x"))))
	sameProblems(t, problems(t, err), []string{ri + ".restrictions[0].schema: not an AnonCreds restriction key (allowed: " + restrictionKeyList + ")"})
	_, err = v.OOB("presentationExchange", []byte(with(t, peBody, set("presentationDefinition.input_descriptors.0.x", 1), set("proofFormats.presentationExchange", raw(`{}`)))))
	sameProblems(t, problems(t, err), []string{id + ".x: is not a DIF Presentation Exchange field here"})
}

func TestStrictInputDescriptors(t *testing.T) {
	full := `{"id":"citizenship","name":"License","purpose":"Name","schema":[{"uri":"https://www.w3.org/2018/credentials#VerifiableCredential"}],"constraints":{"fields":[{"path":["$.credentialSubject.givenName"]}]}}`
	tests := []struct {
		name       string
		descriptor string
		strict     []string // problems in strict mode
		dif        []string // problems in dif mode
	}{
		{"every listed field", full, nil, nil},
		{"v2 style", `{"id":"a","constraints":{"fields":[{"path":["$.a"]}]}}`, []string{
			id + ".name: is required (input_descriptors strict)",
			id + ".purpose: is required (input_descriptors strict)",
			id + ".schema: is required (input_descriptors strict): a non-empty list of {uri}",
		}, nil},
		{"v1 without constraints", `{"id":"a","name":"n","purpose":"p","schema":[{"uri":"x"}]}`, []string{
			id + ".constraints: is required (input_descriptors strict): {fields: [{path: [...]}]}",
		}, nil},
		{"no fields", `{"id":"a","name":"n","purpose":"p","schema":[{"uri":"x"}],"constraints":{}}`, []string{
			id + ".constraints.fields: must list at least one field with a path (input_descriptors strict)",
		}, nil},
		{"empty name and purpose", `{"id":"a","name":"","purpose":" ","schema":[{"uri":"x"}],"constraints":{"fields":[{"path":["$.a"]}]}}`, []string{
			id + ".name: must not be empty (input_descriptors strict)",
			id + ".purpose: must not be empty (input_descriptors strict)",
		}, nil},
		{"no path", `{"id":"a","name":"n","purpose":"p","schema":[{"uri":"x"}],"constraints":{"fields":[{}]}}`, []string{
			id + ".constraints.fields[0].path: is required",
		}, []string{id + ".constraints.fields[0].path: is required"}},
	}
	strict := newValidator(t, Options{InputDescriptors: "strict"})
	dif := newValidator(t, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := with(t, peBody, set("presentationDefinition.input_descriptors", raw("["+tt.descriptor+"]")))
			_, err := strict.OOB("presentationExchange", []byte(body))
			sameProblems(t, problems(t, err), tt.strict)
			_, err = dif.OOB("presentationExchange", []byte(body))
			sameProblems(t, problems(t, err), tt.dif)
		})
	}
}

func TestProofRecordID(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"0b9e6c1e-3f0e-4c1e-9d44-4b3c8f2a7e11", true},
		{"0B9E6C1E-3F0E-4C1E-9D44-4B3C8F2A7E11", true},
		{"", false},
		{"0b9e6c1e3f0e4c1e9d444b3c8f2a7e11", false},
		{"urn:uuid:0b9e6c1e-3f0e-4c1e-9d44-4b3c8f2a7e11", false},
		{"{0b9e6c1e-3f0e-4c1e-9d44-4b3c8f2a7e11}", false},
		{"0b9e6c1e-3f0e-4c1e-9d44-4b3c8f2a7e1g", false},
		{"../../etc/passwd", false},
	}
	for _, tt := range tests {
		err := ProofRecordID(tt.id)
		if (err == nil) != tt.ok {
			t.Errorf("ProofRecordID(%q) = %v, want ok %v", tt.id, err, tt.ok)
		}
		if err != nil && err.Error() != "proofRecordId: must be a UUID" {
			t.Errorf("message %q", err.Error())
		}
	}
}

// TestSchemaCopies keeps the embedded DIF schemas equal to the copies in
// testdata/presentation-exchange/schemas (from DIF).
func TestSchemaCopies(t *testing.T) {
	for _, name := range []string{"presentation-definition.json", "presentation-definition-claim-format-designations.json"} {
		shared, err := os.ReadFile(filepath.Join(fixturesDir, "schemas", name))
		if err != nil {
			t.Fatal(err)
		}
		embedded, err := schemaFiles.ReadFile("schemas/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(shared, embedded) {
			t.Errorf("schemas/%s differs from testdata/presentation-exchange/schemas", name)
		}
	}
}

// TestConcurrentUse shares one Validator between goroutines (run with
// -race): the compiled schemas are read-only, the filter cache locked.
func TestConcurrentUse(t *testing.T) {
	v := newValidator(t, Options{})
	done := make(chan error)
	for g := range 4 {
		go func() {
			var err error
			for i := range 40 {
				pattern := string(rune('a'+(g+i)%6)) + "+"
				body := with(t, peBody, set("presentationDefinition.input_descriptors.0.constraints.fields.0.filter.pattern", pattern))
				if _, err = v.OOB("presentationExchange", []byte(body)); err != nil {
					break
				}
				if _, err = v.OOB("indy", []byte(indyBody)); err != nil {
					break
				}
			}
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestOrgID(t *testing.T) {
	for id, ok := range map[string]bool{
		"0f8fad5b-d9cb-469f-a165-70867728950e": true,
		"org-1":                                true,
		"":                                     false,
		"a b":                                  false,
		"é":                                    false,
		"a\x00":                                false,
		strings.Repeat("a", 128):               true,
		strings.Repeat("a", 129):               false,
	} {
		if err := OrgID(id); (err == nil) != ok {
			t.Errorf("OrgID(%q) = %v, want ok %v", id, err, ok)
		}
	}
}
