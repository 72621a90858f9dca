package w3c

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/ldp"
)

// testVocab is acapyCredential's inline @vocab.
const testVocab = "https://example.org/proofgate-test#"

// A holder adds an inline context to a credential after issuance that
// gives a new name the meaning of a signed one, and respells the member
// or value: the issuer's RDF proof still verifies, but a presentation
// definition reading the JSON would see the new name. Each is refused
// for its context; the credential as issued (an inline @vocab, as ACA-Py
// and Credo issue) verifies.
func TestInlineContextDefinitions(t *testing.T) {
	issuer, holder := newParty(t), newParty(t)
	card := acapyCredential(issuer.did, holder.did)
	card["type"] = []any{"VerifiableCredential", "LibraryCard"}
	card["credentialSubject"].(map[string]any)["dateOfBirth"] = "2010-01-01"
	card["credentialSubject"].(map[string]any)["expiryDate"] = "1990-01-01"
	signed := issuer.sign(t, card, ldp.SignOptions{Purpose: did.AssertionMethod})

	addContext := func(entry any) func(map[string]any) {
		return func(c map[string]any) { c["@context"] = append(c["@context"].([]any), entry) }
	}
	for _, tt := range []struct {
		name    string
		respell func(map[string]any)
		reason  string
	}{
		{"as issued: credentials v1 and an inline @vocab", nil, ""},
		{"as issued, the @vocab object with @version", func(c map[string]any) {
			c["@context"].([]any)[1].(map[string]any)["@version"] = 1.1
		}, ""},
		{"a LibraryCard shown as a UniversityDegreeCredential", func(c map[string]any) {
			addContext(map[string]any{"UniversityDegreeCredential": testVocab + "LibraryCard"})(c)
			c["type"] = []any{"VerifiableCredential", "UniversityDegreeCredential"}
		}, verify.ReasonContext},
		{"dateOfBirth and expiryDate swapped", func(c map[string]any) {
			addContext(map[string]any{"dateOfBirth": testVocab + "expiryDate", "expiryDate": testVocab + "dateOfBirth"})(c)
			s := c["credentialSubject"].(map[string]any)
			s["dateOfBirth"], s["expiryDate"] = s["expiryDate"], s["dateOfBirth"]
		}, verify.ReasonContext},
		{"the swap in a context nested in the subject", func(c map[string]any) {
			s := c["credentialSubject"].(map[string]any)
			s["@context"] = map[string]any{"dateOfBirth": testVocab + "expiryDate", "expiryDate": testVocab + "dateOfBirth"}
			s["dateOfBirth"], s["expiryDate"] = s["expiryDate"], s["dateOfBirth"]
		}, verify.ReasonContext},
		{"a context importing another", addContext(map[string]any{"@import": "https://www.w3.org/2018/credentials/v1"}), verify.ReasonContext},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cred := deepCopy(t, signed)
			if tt.respell != nil {
				tt.respell(cred)
			}
			pres := holder.sign(t, acapyPresentation(cred), ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge})
			got, err := newTestVerifier(t, Options{}, Env{}).Verify(context.Background(), input(t, pres))
			if err != nil || got.Reason != tt.reason || got.Verified != (tt.reason == "") {
				raw, _ := json.Marshal(got)
				t.Fatalf("verdict %s %v, want %q", raw, err, tt.reason)
			}
		})
	}
}

// The proof does not sign the @vocab either, only the names it makes:
// a holder that moves the end of the @vocab into a name respells the
// name (an ExpiredLibraryCard shown as a LibraryCard) and the proof still
// verifies. An inline @vocab must end where names start: at '/', '#' or
// ':', as every published vocabulary does.
func TestVocabCannotSplitASignedName(t *testing.T) {
	issuer, holder := newParty(t), newParty(t)
	card := acapyCredential(issuer.did, holder.did)
	card["type"] = []any{"VerifiableCredential", "ExpiredLibraryCard"}
	card["credentialSubject"] = map[string]any{"id": holder.did}
	signed := issuer.sign(t, card, ldp.SignOptions{Purpose: did.AssertionMethod})
	for _, tt := range []struct {
		name   string
		vocab  string
		typ    string
		reason string
	}{
		{"as issued", testVocab, "ExpiredLibraryCard", ""},
		{"the vocab ends inside the name", testVocab + "Expired", "LibraryCard", verify.ReasonContext},
		{"a relative vocab, appended to the one before", "Expired", "LibraryCard", verify.ReasonContext},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cred := deepCopy(t, signed)
			ctx := cred["@context"].([]any)
			if tt.name == "a relative vocab, appended to the one before" {
				cred["@context"] = append(ctx, map[string]any{"@vocab": tt.vocab})
			} else {
				ctx[1].(map[string]any)["@vocab"] = tt.vocab
			}
			cred["type"] = []any{"VerifiableCredential", tt.typ}
			pres := holder.sign(t, acapyPresentation(cred), ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge})
			got, err := newTestVerifier(t, Options{}, Env{}).Verify(context.Background(), input(t, pres))
			if err != nil || got.Reason != tt.reason || got.Verified != (tt.reason == "") {
				raw, _ := json.Marshal(got)
				t.Fatalf("verdict %s %v, want %q", raw, err, tt.reason)
			}
		})
	}
}

func TestAllowedContext(t *testing.T) {
	for _, tt := range []struct {
		name string
		ctx  string
		ok   bool
	}{
		{"a URL", `"https://www.w3.org/2018/credentials/v1"`, true},
		{"URLs", `["https://www.w3.org/2018/credentials/v1","https://w3id.org/security/suites/ed25519-2020/v1"]`, true},
		{"@vocab", `{"@vocab":"https://example.org/v#"}`, true},
		{"@vocab and @version", `{"@vocab":"https://example.org/v#","@version":1.1}`, true},
		{"a term", `{"name":"https://schema.org/name"}`, false},
		{"@vocab and a term", `{"@vocab":"https://example.org/v#","name":"https://schema.org/name"}`, false},
		{"@protected", `{"@protected":true}`, false},
		{"@base", `{"@base":"https://example.org/"}`, false},
		{"@vocab not a string", `{"@vocab":1}`, false},
		{"@vocab ending in /", `{"@vocab":"https://schema.org/"}`, true},
		{"@vocab ending in :", `{"@vocab":"urn:example:"}`, true},
		{"@vocab ending inside a word", `{"@vocab":"https://example.org/v#Expired"}`, false},
		{"relative @vocab", `{"@vocab":"Expired"}`, false},
		{"relative @vocab ending in #", `{"@vocab":"v#"}`, false},
		{"empty @vocab", `{"@vocab":""}`, false},
		{"null", `null`, false},
		{"a number", `1`, false},
		{"nested arrays", `[["https://www.w3.org/2018/credentials/v1"]]`, false},
	} {
		var c any
		if err := json.Unmarshal([]byte(tt.ctx), &c); err != nil {
			t.Fatal(err)
		}
		if err := allowedContext(c); (err == nil) != tt.ok {
			t.Errorf("%s: %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}
