package jwt

import (
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/auth"
)

// Several jwt providers, one per identity provider: a token goes to the
// one of its issuer, whatever the order; a token of an issuer none is
// configured for gets the first one's refusal ("wrong issuer").
func TestSeveralIssuers(t *testing.T) {
	const otherIssuer = "https://idp.test/realms/partners"
	ka, kb := newRSAKey(t, "a", 0), newRSAKey(t, "b", 1)
	provider := func(k testKey, iss string) *Provider {
		jwk, _ := jsonKey(k.public())
		return provision(t, &Provider{KeyFiles: []string{writeFile(t, t.TempDir(), "k.jwk", []byte(jwk))}, Issuer: iss, Audience: []string{testAudience}})
	}
	chain := auth.Chain{provider(ka, testIssuer), provider(kb, otherIssuer)}
	for _, tt := range []struct {
		name   string
		token  string
		caller string // "" refused
		reason string
	}{
		{"the first's", ka.sign(t, claimsFor(nil)), "jwt:user-1", ""},
		{"the second's", kb.sign(t, claimsFor(func(c map[string]any) { c["iss"] = otherIssuer; c["sub"] = "partner-1" })), "jwt:partner-1", ""},
		{"the second's issuer, the first's key", ka.sign(t, claimsFor(func(c map[string]any) { c["iss"] = otherIssuer })), "", "unknown signing key"},
		{"neither's issuer", ka.sign(t, claimsFor(func(c map[string]any) { c["iss"] = "https://evil.test" })), "", "wrong issuer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, challenge, err := chain.Authenticate(bearer(tt.token))
			if tt.caller != "" {
				if err != nil || p.Subject != tt.caller {
					t.Fatalf("%+v, %v", p, err)
				}
				return
			}
			if err == nil || !strings.Contains(challenge, tt.reason) {
				t.Fatalf("%+v, %v, challenge %q; want refused with %q", p, err, challenge, tt.reason)
			}
		})
	}
}
