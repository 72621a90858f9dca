package jwt

import (
	"testing"

	"github.com/proofgate/proofgate/internal/auth"
)

// TestSeveralIssuersWithTheirOwnAlgorithms: a JWT whose iss is not a jwt
// provider's configured issuer is left to the next, so several identity
// providers can each have a jwt provider: two IdPs that sign with
// different algorithms (each provider's allow-list the one its IdP uses:
// RS256 for Keycloak, ES256 for another) each take their own tokens. The
// first refused the second's before looking at its issuer ("signature
// algorithm not allowed"), and every user of the second IdP got a 401.
func TestSeveralIssuersWithTheirOwnAlgorithms(t *testing.T) {
	const otherIssuer = "https://idp.test/realms/partners"
	ka, kb := newRSAKey(t, "a", 0), newECKey(t, "b")
	provider := func(k testKey, iss string, alg string) *Provider {
		jwk, _ := jsonKey(k.public())
		return provision(t, &Provider{KeyFiles: []string{writeFile(t, t.TempDir(), "k.jwk", []byte(jwk))},
			Issuer: iss, Audience: []string{testAudience}, Algorithms: []string{alg}})
	}
	chain := auth.Chain{provider(ka, testIssuer, "RS256"), provider(kb, otherIssuer, "ES256")}
	tok := kb.sign(t, claimsFor(func(c map[string]any) { c["iss"] = otherIssuer; c["sub"] = "partner-1" }))
	p, challenge, err := chain.Authenticate(bearer(tok))
	if err != nil || p.Subject != "jwt:partner-1" {
		t.Fatalf("the second IdP's ES256 token: %+v, %v, challenge %q; want it taken by the second provider", p, err, challenge)
	}
}
