package jwt

import (
	"context"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

// The issuer and the audience are resolved at provisioning alike: a token
// for the audience an {env.*} placeholder names is accepted (the audience
// used to stay as written, refusing every token as wrong_audience), and
// an unset variable fails the load instead of checking nothing.
func TestIssuerAndAudiencePlaceholders(t *testing.T) {
	t.Setenv("PROOFGATE_TEST_ISS", testIssuer)
	t.Setenv("PROOFGATE_TEST_AUD", testAudience)
	k := newRSAKey(t, "a", 0)
	jwk, _ := jsonKey(k.public())
	keyFile := writeFile(t, t.TempDir(), "k.jwk", []byte(jwk))
	p := provision(t, &Provider{KeyFiles: []string{keyFile}, Issuer: "{env.PROOFGATE_TEST_ISS}", Audience: []string{"other", "{env.PROOFGATE_TEST_AUD}"}})
	if got, err := p.Authenticate(bearer(k.sign(t, claimsFor(nil)))); err != nil || got == nil {
		t.Fatalf("a token for the placeholder's audience: %+v %v", got, err)
	}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	unset := &Provider{KeyFiles: []string{keyFile}, Issuer: testIssuer, Audience: []string{"{env.PROOFGATE_TEST_UNSET}"}}
	if err := unset.Provision(ctx); err == nil || !strings.Contains(err.Error(), "audience") {
		t.Fatalf("an unset audience variable: %v, want the load to fail naming audience", err)
	}
	_ = unset.Cleanup()
}
