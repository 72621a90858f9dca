package jwt

// The tests in this file pin checks that a round of mutation testing
// found held by no test: each fails when its check is dropped or weakened.

import (
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/go-jose/go-jose/v4"

	"github.com/proofgate/proofgate/internal/auth"
)

// The list format: "<org>:<role>" binds role to org; a bare org takes the
// roles claim; "<org>:" (an empty role) holds no role.
func TestListFormatOrgRole(t *testing.T) {
	k := newRSAKey(t, "k1", 0)
	i := newIDP(t, k)
	p := remoteProvider(t, i, func(p *Provider) { p.OrgsClaim = "orgs"; p.OrgsFormat = FormatList })
	const third = "third-org"
	tok := k.sign(t, claimsFor(func(c map[string]any) {
		c["orgs"] = []string{testOrg + ":verifier", otherOrg + ":", third}
		c["roles"] = []string{"owner"}
	}))
	pr, err := p.Authenticate(bearer(tok))
	if err != nil {
		t.Fatal(err)
	}
	if !pr.Authorize(testOrg, auth.DefaultAllowedRoles) {
		t.Errorf("org:verifier not authorized for org (orgs %v)", pr.Orgs)
	}
	if _, ok := pr.Orgs["verifier"]; ok {
		t.Errorf("role taken for an org id: %v", pr.Orgs)
	}
	if pr.Authorize(otherOrg, auth.DefaultAllowedRoles) {
		t.Errorf("org with an empty role got the shared roles: %v", pr.Orgs)
	}
	if !pr.Authorize(third, auth.DefaultAllowedRoles) {
		t.Errorf("bare org did not get the roles claim: %v", pr.Orgs)
	}
}

// A namespaced claim name containing dots is looked up by its exact name.
func TestNamespacedOrgsClaim(t *testing.T) {
	k := newRSAKey(t, "k1", 0)
	i := newIDP(t, k)
	p := remoteProvider(t, i, func(p *Provider) { p.OrgsClaim = "https://example.com/orgs"; p.OrgsFormat = FormatMap })
	tok := k.sign(t, claimsFor(func(c map[string]any) {
		c["https://example.com/orgs"] = map[string]any{testOrg: []string{"verifier"}}
	}))
	pr, err := p.Authenticate(bearer(tok))
	if err != nil {
		t.Fatal(err)
	}
	if !pr.Authorize(testOrg, auth.DefaultAllowedRoles) {
		t.Fatalf("namespaced claim not read: %v", pr.Orgs)
	}
}

// A key published with "alg": "RS256" does not verify a PS256 token, even
// when both algorithms are allowed (RFC 7517 4.4, RFC 8725 3.1).
func TestKeyAlgHonored(t *testing.T) {
	k := newRSAKey(t, "k1", 0)
	i := newIDP(t, k) // published with alg RS256
	p := remoteProvider(t, i, func(p *Provider) { p.Algorithms = []string{"RS256", "PS256"} })
	if _, err := p.Authenticate(bearer(k.sign(t, claimsFor(nil)))); err != nil {
		t.Fatalf("RS256 token refused: %v", err)
	}
	if _, err := p.Authenticate(bearer(k.signAs(t, jose.PS256, claimsFor(nil)))); err == nil {
		t.Fatal("PS256 token accepted by a key published for RS256")
	}
}

// A key published for encryption ("use": "enc") never verifies a token.
func TestEncryptionKeyNotUsed(t *testing.T) {
	k := newRSAKey(t, "k1", 0)
	i := newIDP(t)
	pub := k.public()
	pub.Use = "enc"
	i.mu.Lock()
	i.keys = []jose.JSONWebKey{pub}
	i.mu.Unlock()
	p := remoteProvider(t, i, nil)
	if _, err := p.Authenticate(bearer(k.sign(t, claimsFor(nil)))); err == nil {
		t.Fatal("token accepted with a use=enc key")
	}
}

// Without algorithms configured only RS256 is allowed: an ES256 token is
// refused even when the key set holds an EC key.
func TestDefaultAlgorithmsRS256Only(t *testing.T) {
	ec := newECKey(t, "ec1")
	i := newIDP(t, ec)
	p := remoteProvider(t, i, func(p *Provider) { p.Algorithms = nil })
	if _, err := p.Authenticate(bearer(ec.sign(t, claimsFor(nil)))); err == nil {
		t.Fatal("ES256 token accepted with the default allow-list")
	}
}

// The leeway bound is 5 minutes exactly.
func TestLeewayBound(t *testing.T) {
	for _, tc := range []struct {
		d  time.Duration
		ok bool
	}{{5 * time.Minute, true}, {5*time.Minute + time.Second, false}} {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
		p := Provider{JWKSURL: "https://idp.test/certs", Leeway: new(caddy.Duration(tc.d))}
		err := p.Provision(ctx)
		if err == nil {
			err = p.Validate()
		}
		_ = p.Cleanup()
		cancel()
		if (err == nil) != tc.ok {
			t.Errorf("leeway %v: err %v, want ok=%v", tc.d, err, tc.ok)
		}
	}
}
