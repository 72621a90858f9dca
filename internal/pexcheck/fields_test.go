package pexcheck

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestFieldFilterDateBounds: the local verifier reads a DIF v1 date bound
// (string maximum beside "format": "date", as in the DIF v1 examples) as a
// comparison of dates, like create-time validation does (both compile
// filters with internal/pefilter).
func TestFieldFilterDateBounds(t *testing.T) {
	var d peDescriptor
	if err := json.Unmarshal([]byte(`{"id":"us_passport_input","constraints":{"fields":[
		{"path":["$.credentialSubject.birth_date"],"filter":{"type":"string","format":"date","maximum":"1999-05-16"}}]}}`), &d); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		dob  string
		want string // problem substring, "" for none
	}{
		{"1999-05-16", ""},
		{"1980-12-31", ""},
		{"1999-05-17", "does not match the filter"},
		{"not a date", "does not match the filter"},
	} {
		cred := map[string]any{"credentialSubject": map[string]any{"birth_date": tt.dob}}
		work := newFieldWork(time.Now())
		got := strings.Join(fieldProblems(&d, cred, work), "; ")
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("birth_date %s: problems %q, want %q", tt.dob, got, tt.want)
		}
	}
}

// TestSubmissionReadsNumbersAsSigned: a presentation's numbers are read as
// the proofs sign them, IEEE doubles, so that digits no proof covers
// cannot meet a filter: "creditScore": 700.00000000000001 is the signed
// 700 (its JCS and RDF forms are 700's) and does not exceed 700. The
// filters used to read the exact text.
func TestSubmissionReadsNumbersAsSigned(t *testing.T) {
	req := []byte(`{"presentation_definition":{"id":"def-1","input_descriptors":[{"id":"score","constraints":{"fields":[{"path":["$.credentialSubject.creditScore"],"filter":{"type":"number","exclusiveMinimum":700}}]}}]}}`)
	vp := func(score string) []byte {
		return []byte(`{"@context":["https://www.w3.org/2018/credentials/v1"],"type":["VerifiablePresentation"],
			"presentation_submission":{"id":"s","definition_id":"def-1","descriptor_map":[{"id":"score","format":"ldp_vc","path":"$.verifiableCredential[0]"}]},
			"verifiableCredential":[{"type":["VerifiableCredential"],"credentialSubject":{"creditScore":` + score + `}}],
			"proof":{"challenge":"c-1"}}`)
	}
	for _, tt := range []struct {
		score string
		meets bool
	}{
		{"700", false},
		{"700.00000000000001", false}, // the double 700
		{"700.0000000001", true},
		{"701", true},
	} {
		problems := Check(req, vp(tt.score), "c-1", "")
		if meets := !strings.Contains(strings.Join(problems, "; "), "does not match the filter"); meets != tt.meets {
			t.Errorf("creditScore %s: problems %v, want the filter met: %v", tt.score, problems, tt.meets)
		}
	}
}

// TestPositionalPathsUnderRDFProofs: a field path that reads a position in
// an array ([0], a slice) is not used on a credential whose proof signs
// its canonical RDF, where arrays are sets and the holder chooses their
// order: the field is unmet, saying why (another of its paths may still
// answer it). On a JCS-signed credential, or a JWT's claims, the order is
// signed and the path reads it.
func TestPositionalPathsUnderRDFProofs(t *testing.T) {
	subject := map[string]any{"nationality": []any{"FR", "DE"}}
	cred := func(proof any) map[string]any {
		c := map[string]any{"credentialSubject": subject}
		if proof != nil {
			c["proof"] = proof
		}
		return c
	}
	descriptor := func(paths string) *peDescriptor {
		var d peDescriptor
		if err := json.Unmarshal([]byte(`{"id":"n","constraints":{"fields":[{"path":`+paths+`,"filter":{"const":"FR"}}]}}`), &d); err != nil {
			t.Fatal(err)
		}
		return &d
	}
	rdf := map[string]any{"type": "Ed25519Signature2018"}
	for _, tt := range []struct {
		name  string
		cred  map[string]any
		paths string
		want  string // problem substring, "" for none
	}{
		{"RDF proof, index", cred(rdf), `["$.credentialSubject.nationality[0]"]`, "reads a position in an array"},
		{"RDF proof, slice", cred(rdf), `["$.credentialSubject.nationality[0:1]"]`, "reads a position in an array"},
		{"RDF Data Integrity proof, index", cred(map[string]any{"type": "DataIntegrityProof", "cryptosuite": "eddsa-rdfc-2022"}), `["$.credentialSubject.nationality[0]"]`, "reads a position in an array"},
		{"RDF proof, by value", cred(rdf), `["$.credentialSubject.nationality[*]"]`, ""},
		{"RDF proof, another path answers", cred(rdf), `["$.credentialSubject.nationality[0]","$.credentialSubject.nationality[*]"]`, ""},
		{"JCS proof, index", cred(map[string]any{"type": "DataIntegrityProof", "cryptosuite": "eddsa-jcs-2022"}), `["$.credentialSubject.nationality[0]"]`, ""},
		{"JWT claims, index", cred(nil), `["$.credentialSubject.nationality[0]"]`, ""},
	} {
		work := newFieldWork(time.Now())
		got := strings.Join(fieldProblems(descriptor(tt.paths), tt.cred, work), "; ")
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: problems %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestStatesNothing(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want bool
	}{
		{`null`, true}, {`[]`, true}, {`[null, [], [[null]]]`, true}, {`{"@value": null}`, true},
		{`{"@value": null, "@type": "xsd:date"}`, true}, {`{"@set": []}`, true}, {`{"@set": [null], "@index": "i"}`, true},
		{`""`, false}, {`0`, false}, {`false`, false}, {`{}`, false}, {`[null, 1]`, false}, {`{"@value": ""}`, false},
		{`{"@list": []}`, false}, {`{"@set": [1]}`, false}, {`{"@id": "urn:x"}`, false},
	} {
		var v any
		if err := json.Unmarshal([]byte(tt.v), &v); err != nil {
			t.Fatal(err)
		}
		if got := statesNothing(v); got != tt.want {
			t.Errorf("statesNothing(%s) = %v, want %v", tt.v, got, tt.want)
		}
	}
}
