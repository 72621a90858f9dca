package w3c

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/ldp"
)

// A holder respells a signed member of a credential (as its absolute IRI,
// an alias of an inline context, "@id" for "id"): the issuer's RDF proof
// still verifies, but a reader of the JSON would miss an expiry, a
// revocation or the subject the credential is bound to. Each is refused.
// The control rows show each credential is refused or accepted as it
// should be when not respelled.
func TestRespelledCredentialMembers(t *testing.T) {
	issuer, holder, thief := newParty(t), newParty(t), newParty(t)
	revokedCred, srv := revokedCredential(t, issuer, holder)
	expired := acapyCredential(issuer.did, holder.did)
	expired["expirationDate"] = "2025-01-01T00:00:00Z" // the verifier's clock: 2025-06-01
	expiredCred := issuer.sign(t, expired, ldp.SignOptions{Purpose: did.AssertionMethod})
	holderCred := issuer.sign(t, acapyCredential(issuer.did, holder.did), ldp.SignOptions{Purpose: did.AssertionMethod})

	rename := func(from, to string) func(map[string]any) {
		return func(c map[string]any) { c[to] = c[from]; delete(c, from) }
	}
	for _, tt := range []struct {
		name    string
		cred    map[string]any
		signer  party
		respell func(map[string]any)
		reason  string
	}{
		{"revoked", revokedCred, holder, nil, verify.ReasonRevoked},
		{"revoked, credentialStatus as its IRI", revokedCred, holder, rename("credentialStatus", credNS+"credentialStatus"), verify.ReasonMalformed},
		{"expired", expiredCred, holder, nil, verify.ReasonExpired},
		{"expired, expirationDate as its IRI", expiredCred, holder, func(c map[string]any) {
			c[credNS+"expirationDate"] = map[string]any{"@value": c["expirationDate"], "@type": "http://www.w3.org/2001/XMLSchema#dateTime"}
			delete(c, "expirationDate")
		}, verify.ReasonMalformed},
		{"expired, expirationDate as an alias", expiredCred, holder, func(c map[string]any) {
			c["@context"] = append(c["@context"].([]any), map[string]any{"until": map[string]any{"@id": credNS + "expirationDate", "@type": "http://www.w3.org/2001/XMLSchema#dateTime"}})
			rename("expirationDate", "until")(c)
		}, verify.ReasonContext}, // the inline definition alone is refused (contexts.go)
		{"presented by its subject", holderCred, holder, nil, ""},
		{"presented by another", holderCred, thief, nil, verify.ReasonHolderBinding},
		{"presented by another, the subject's id as @id", holderCred, thief, func(c map[string]any) {
			rename("id", "@id")(c["credentialSubject"].(map[string]any))
		}, verify.ReasonMalformed},
		{"presented by another, credentialSubject as its IRI", holderCred, thief, rename("credentialSubject", credNS+"credentialSubject"), verify.ReasonMalformed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cred := deepCopy(t, tt.cred)
			if tt.respell != nil {
				tt.respell(cred)
			}
			pres := tt.signer.sign(t, acapyPresentation(cred), ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge})
			got, err := newTestVerifier(t, Options{}, Env{HTTPClient: srv.Client()}).Verify(context.Background(), input(t, pres))
			if err != nil || got.Reason != tt.reason || got.Verified != (tt.reason == "") {
				raw, _ := json.Marshal(got)
				t.Fatalf("verdict %s %v, want %q", raw, err, tt.reason)
			}
		})
	}
}

// A presentation's proof with its domain respelled (the signed quad is
// the same) is refused, not read as a proof without a domain.
func TestRespelledProofDomain(t *testing.T) {
	issuer, holder := newParty(t), newParty(t)
	cred := issuer.sign(t, acapyCredential(issuer.did, holder.did), ldp.SignOptions{Purpose: did.AssertionMethod})
	pres := holder.sign(t, acapyPresentation(cred), ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge, Domain: "evil.example"})
	v := newTestVerifier(t, Options{}, Env{})
	if got, _ := v.Verify(context.Background(), input(t, pres)); got.Reason != verify.ReasonDomain {
		t.Fatalf("as signed: %+v, want %q", got, verify.ReasonDomain)
	}
	p := pres["proof"].(map[string]any)
	p["https://w3id.org/security#domain"] = p["domain"]
	delete(p, "domain")
	if got, _ := v.Verify(context.Background(), input(t, pres)); got.Verified || got.Reason != verify.ReasonMalformed {
		t.Fatalf("respelled: %+v, want %q", got, verify.ReasonMalformed)
	}
}
