package pexcheck

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// Builders of the presentations TestDefinitionFormat judges: one input
// descriptor "x" asking for credentialSubject.name, answered by one
// credential.

// ldpCred is a JSON-LD credential with proofs of the given types
// ("DataIntegrityProof/<cryptosuite>" for Data Integrity).
func ldpCred(types ...string) map[string]any {
	proofs := make([]any, len(types))
	for i, t := range types {
		typ, cs, _ := strings.Cut(t, "/")
		p := map[string]any{"type": typ}
		if cs != "" {
			p["cryptosuite"] = cs
		}
		proofs[i] = p
	}
	return map[string]any{"credentialSubject": map[string]any{"name": "Alice"}, "proof": proofs}
}

// jwtWithHeader is an unsigned compact JWT with this header (JSON text).
func jwtWithHeader(header string, payload map[string]any) string {
	b, _ := json.Marshal(payload)
	return base64.RawURLEncoding.EncodeToString([]byte(header)) + "." + base64.RawURLEncoding.EncodeToString(b) + ".c2ln"
}

// jwtCred is a jwt_vc whose header is header.
func jwtCred(header string) string {
	return jwtWithHeader(header, map[string]any{"iss": "did:example:i", "vc": map[string]any{"credentialSubject": map[string]any{"name": "Alice"}}})
}

// entry is a descriptor_map entry for descriptor x naming the first
// credential, in format ("" leaves format out).
func entry(format string) map[string]any {
	e := map[string]any{"id": "x", "path": "$.verifiableCredential[0]"}
	if format != "" {
		e["format"] = format
	}
	return e
}

// nestedEntry is an entry whose outer level (path "$", or outerPath) has
// format outer and whose path_nested names the credential at innerPath.
func nestedEntry(outer, outerPath, inner, innerPath string) map[string]any {
	return map[string]any{"id": "x", "format": outer, "path": outerPath,
		"path_nested": map[string]any{"id": "x", "format": inner, "path": innerPath}}
}

// ldpVP is a JSON-LD presentation of cred, mapped by e, with proofs of
// the given types carrying the challenge.
func ldpVP(e map[string]any, cred any, vpProofs ...string) []byte {
	proofs := make([]any, len(vpProofs))
	for i, p := range ldpCred(vpProofs...)["proof"].([]any) {
		p.(map[string]any)["challenge"] = "c"
		proofs[i] = p
	}
	b, _ := json.Marshal(map[string]any{
		"presentation_submission": map[string]any{"definition_id": "d", "descriptor_map": []any{e}},
		"verifiableCredential":    []any{cred},
		"proof":                   proofs,
	})
	return b
}

// jwtVP is a JWT presentation (header alg) of cred, mapped by e, whose
// paths read the payload (the submission is in the vp claim).
func jwtVP(alg string, e map[string]any, cred any) []byte {
	b, _ := json.Marshal(jwtWithHeader(`{"alg":"`+alg+`"}`, map[string]any{"iss": "did:example:h", "nonce": "c", "vp": map[string]any{
		"verifiableCredential":    []any{cred},
		"presentation_submission": map[string]any{"definition_id": "d", "descriptor_map": []any{e}},
	}}))
	return b
}

// TestDefinitionFormat: the definition's format, and an input
// descriptor's own, are held to the presentation: each descriptor_map
// level names a claim format that agrees with what it selects and that
// the format accepts at its level, with the alg or proof types listed;
// the presentation itself meets the definition's presentation formats.
func TestDefinitionFormat(t *testing.T) {
	ed18, ed20 := "Ed25519Signature2018", "Ed25519Signature2020"
	rdfc, jcs := "DataIntegrityProof/eddsa-rdfc-2022", "DataIntegrityProof/eddsa-jcs-2022"
	es256, eddsa := jwtCred(`{"alg":"ES256","kid":"did:example:i#1"}`), jwtCred(`{"alg":"EdDSA"}`)
	tests := []struct {
		name                  string
		defFormat, descFormat string // JSON; "" none
		pres                  []byte
		want                  string // "" = answers
	}{
		// No format: any format the verifier reads.
		{"no format, ldp_vc", "", "", ldpVP(entry("ldp_vc"), ldpCred(ed20), ed18), ""},
		{"no format, jwt_vc", "", "", ldpVP(entry("jwt_vc"), eddsa, ed18), ""},
		{"empty format names none", `{}`, `{}`, ldpVP(entry("ldp_vc"), ldpCred(ed20), ed18), ""},

		// What an entry's format must be, format or not.
		{"format missing", "", "", ldpVP(entry(""), ldpCred(ed18), ed18), `descriptor_map[0].format is missing: the credential it names is a JSON object`},
		{"format unknown", "", "", ldpVP(entry("mso_mdoc"), ldpCred(ed18), ed18), `descriptor_map[0].format "mso_mdoc" is not a claim format the local verifier reads`},
		{"jwt_vc for an object", "", "", ldpVP(entry("jwt_vc"), ldpCred(ed18), ed18), `descriptor_map[0].format is "jwt_vc", but the credential it names is a JSON object`},
		{"ldp_vc for a JWT", "", "", ldpVP(entry("ldp_vc"), eddsa, ed18), `descriptor_map[0].format is "ldp_vc", but the credential it names is a JWT (jwt_vc)`},
		{"presentation format for the credential", "", "", ldpVP(entry("ldp_vp"), ldpCred(ed18), ed18), `descriptor_map[0].format is "ldp_vp", but the credential it names`},
		{"plain ldp for a credential", `{"ldp":{"proof_type":["Ed25519Signature2018"]}}`, "", ldpVP(entry("ldp"), ldpCred(ed18), ed18), ""},

		// Keys: the entry's format must be one the format accepts for a
		// credential; the message lists them sorted.
		{"ldp_vc where jwt_vc is asked", `{"jwt_vc":{"alg":["EdDSA"]}}`, "", ldpVP(entry("ldp_vc"), ldpCred(ed18), ed18),
			`descriptor_map[0].format is "ldp_vc", which the definition's format does not accept for a credential (it accepts jwt_vc)`},
		{"accepted keys sorted", `{"ldp_vc":{},"jwt_vc":{},"jwt":{},"ldp":{}}`, "", ldpVP(entry("di_vc"), ldpCred(rdfc), ed18), `(it accepts jwt, jwt_vc, ldp, ldp_vc)`},
		{"di_vc where ldp_vc is asked", `{"ldp_vc":{"proof_type":["DataIntegrityProof"]}}`, "", ldpVP(entry("di_vc"), ldpCred(rdfc), ed18), `does not accept for a credential (it accepts ldp_vc)`},

		// proof_type: one proof of the set in the list is enough.
		{"proof type listed", `{"ldp_vc":{"proof_type":["Ed25519Signature2018"]}}`, "", ldpVP(entry("ldp_vc"), ldpCred(ed18), ed18), ""},
		{"proof type not listed", `{"ldp_vc":{"proof_type":["Ed25519Signature2018"]}}`, "", ldpVP(entry("ldp_vc"), ldpCred(ed20), ed18),
			`descriptor_map[0] names a credential that is a JSON object with proofs of type "Ed25519Signature2020"; the definition's format accepts ldp_vc proof_type Ed25519Signature2018`},
		{"one proof of a set listed", `{"ldp_vc":{"proof_type":["Ed25519Signature2018"]}}`, "", ldpVP(entry("ldp_vc"), ldpCred(ed20, ed18), ed18), ""},
		{"no proof", `{"ldp_vc":{"proof_type":["Ed25519Signature2018"]}}`, "", ldpVP(entry("ldp_vc"), map[string]any{"credentialSubject": map[string]any{"name": "A"}}, ed18), "a JSON object without a proof"},
		{"DataIntegrityProof listed", `{"ldp_vc":{"proof_type":["DataIntegrityProof"]}}`, "", ldpVP(entry("ldp_vc"), ldpCred(jcs), ed18), ""},
		{"a cryptosuite is not a proof type", `{"ldp_vc":{"proof_type":["eddsa-rdfc-2022"]}}`, "", ldpVP(entry("ldp_vc"), ldpCred(rdfc), ed18), `with proofs of type "DataIntegrityProof" ("eddsa-rdfc-2022")`},
		{"di_vc cryptosuite listed", `{"di_vc":{"proof_type":["DataIntegrityProof"],"cryptosuite":["eddsa-rdfc-2022"]}}`, "", ldpVP(entry("di_vc"), ldpCred(rdfc), ed18), ""},
		{"di_vc cryptosuite not listed", `{"di_vc":{"proof_type":["DataIntegrityProof"],"cryptosuite":["eddsa-rdfc-2022"]}}`, "", ldpVP(entry("di_vc"), ldpCred(jcs), ed18),
			`accepts di_vc proof_type DataIntegrityProof cryptosuite eddsa-rdfc-2022`},

		// alg: the JWT header's, read as the verifier reads it.
		{"alg listed", `{"jwt_vc":{"alg":["ES256"]}}`, "", ldpVP(entry("jwt_vc"), es256, ed18), ""},
		{"alg not listed", `{"jwt_vc":{"alg":["ES256"]}}`, "", ldpVP(entry("jwt_vc"), eddsa, ed18),
			`descriptor_map[0] names a credential that is a JWT with alg "EdDSA"; the definition's format accepts jwt_vc alg ES256`},
		{"alg matched exactly, not ALG", `{"jwt_vc":{"alg":["ES256"]}}`, "", ldpVP(entry("jwt_vc"), jwtCred(`{"alg":"EdDSA","ALG":"ES256"}`), ed18), `a JWT with alg "EdDSA"`},
		{"alg repeated: the last", `{"jwt_vc":{"alg":["ES256"]}}`, "", ldpVP(entry("jwt_vc"), jwtCred(`{"alg":"ES256","alg":"EdDSA"}`), ed18), `a JWT with alg "EdDSA"`},

		// An input descriptor's own format replaces the definition's.
		{"descriptor's format replaces", `{"jwt_vc":{"alg":["ES256"]}}`, `{"ldp_vc":{"proof_type":["Ed25519Signature2020"]}}`, ldpVP(entry("ldp_vc"), ldpCred(ed20), ed18), ""},
		{"descriptor's format judged", `{"ldp_vc":{}}`, `{"ldp_vc":{"proof_type":["Ed25519Signature2020"]}}`, ldpVP(entry("ldp_vc"), ldpCred(ed18), ed18), `the input descriptor's format accepts ldp_vc proof_type Ed25519Signature2020`},

		// Levels: a format constrains only the levels its keys name.
		// ACA-Py needs ldp_vp and labels its credentials ldp_vc.
		{"ldp_vp alone leaves credentials free", `{"ldp_vp":{"proof_type":["Ed25519Signature2018"]}}`, "", ldpVP(entry("ldp_vc"), ldpCred(ed20), ed18), ""},
		{"ldp_vp judges the presentation", `{"ldp_vp":{"proof_type":["Ed25519Signature2018"]}}`, "", ldpVP(entry("ldp_vc"), ldpCred(ed18), ed20),
			`the presentation is a JSON object with proofs of type "Ed25519Signature2020"; the definition's format accepts ldp_vp proof_type Ed25519Signature2018`},
		// Credo reads ldp_vc and signs its presentation as it likes.
		{"ldp_vc alone leaves the presentation free", `{"ldp_vc":{"proof_type":["Ed25519Signature2020"]}}`, "", ldpVP(entry("ldp_vc"), ldpCred(ed20), ed18), ""},
		{"plain ldp judges both", `{"ldp":{"proof_type":["Ed25519Signature2020"]}}`, "", ldpVP(entry("ldp_vc"), ldpCred(ed20), ed18), `the presentation is a JSON object with proofs of type "Ed25519Signature2018"`},
		{"jwt_vp alg listed", `{"jwt_vp":{"alg":["ES256"]}}`, "", jwtVP("ES256", nestedEntry("jwt_vp", "$", "jwt_vc", "$.vp.verifiableCredential[0]"), eddsa), ""},
		{"jwt_vp alg not listed", `{"jwt_vp":{"alg":["ES256"]}}`, "", jwtVP("EdDSA", nestedEntry("jwt_vp", "$", "jwt_vc", "$.vp.verifiableCredential[0]"), eddsa), `the presentation is a JWT with alg "EdDSA"; the definition's format accepts jwt_vp alg ES256`},
		{"a JWT presentation where ldp_vp is asked", `{"ldp_vp":{}}`, "", jwtVP("EdDSA", nestedEntry("jwt_vp", "$", "jwt_vc", "$.vp.verifiableCredential[0]"), eddsa), `the presentation is a JWT with alg "EdDSA"; the definition's format accepts ldp_vp`},

		// Outer levels (path_nested) name the presentation.
		{"outer level ldp_vp", "", "", ldpVP(nestedEntry("ldp_vp", "$", "ldp_vc", "$.verifiableCredential[0]"), ldpCred(ed18), ed18), ""},
		{"outer level a credential format", "", "", ldpVP(nestedEntry("ldp_vc", "$", "ldp_vc", "$.verifiableCredential[0]"), ldpCred(ed18), ed18),
			`descriptor_map[0].format is "ldp_vc", but with path_nested it names the presentation`},
		{"outer level ldp_vp on a JWT", "", "", jwtVP("EdDSA", nestedEntry("ldp_vp", "$", "jwt_vc", "$.vp.verifiableCredential[0]"), eddsa), `names the presentation, a JWT (jwt_vp)`},
		{"outer level not the presentation", "", "", ldpVP(nestedEntry("ldp_vp", "$.verifiableCredential", "ldp_vc", "$[0]"), ldpCred(ed18), ed18),
			`descriptor_map[0].path "$.verifiableCredential" has a path_nested, so it must select the presentation itself`},
		{"inner level judged too", `{"jwt_vc":{"alg":["ES256"]}}`, "", jwtVP("EdDSA", nestedEntry("jwt_vp", "$", "jwt_vc", "$.vp.verifiableCredential[0]"), eddsa), `descriptor_map[0].path_nested names a credential that is a JWT with alg "EdDSA"`},
		{"descriptor's jwt_vp judges the outer level", "", `{"jwt_vp":{"alg":["ES256"]}}`, jwtVP("EdDSA", nestedEntry("jwt_vp", "$", "jwt_vc", "$.vp.verifiableCredential[0]"), eddsa),
			`descriptor_map[0] names a presentation that is a JWT with alg "EdDSA"; the input descriptor's format accepts jwt_vp alg ES256`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := `{"presentation_definition":{"id":"d",`
			if tt.defFormat != "" {
				def += `"format":` + tt.defFormat + `,`
			}
			desc := `{"id":"x",`
			if tt.descFormat != "" {
				desc += `"format":` + tt.descFormat + `,`
			}
			def += `"input_descriptors":[` + desc + `"constraints":{"fields":[{"path":["$.credentialSubject.name","$.vc.credentialSubject.name"]}]}}]}}`
			problems := Check([]byte(def), tt.pres, "c", "")
			if tt.want == "" && len(problems) != 0 || tt.want != "" && (len(problems) != 1 || !strings.Contains(problems[0], tt.want)) {
				t.Fatalf("problems %q, want %q", problems, tt.want)
			}
		})
	}
}

// TestJWTHeaderAlg: the alg is read from the header exactly as go-jose
// reads it, or not at all.
func TestJWTHeaderAlg(t *testing.T) {
	for _, tt := range []struct{ header, want string }{
		{`{"alg":"ES256"}`, "ES256"},
		{`{"Alg":"ES256"}`, ""},
		{`{"alg":1}`, ""},
		{`[]`, ""},
		{`not json`, ""},
		{`{"alg":"EdDSA","alg":"ES256"}`, "ES256"},
	} {
		if got := jwtHeaderAlg(jwtWithHeader(tt.header, map[string]any{})); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.header, got, tt.want)
		}
	}
	if got := jwtHeaderAlg("%%%.e30.c2ln"); got != "" {
		t.Errorf("a header that is not base64url: %q", got)
	}
}
