package apikey

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/proofgate/proofgate/internal/auth"
)

// A key given as its digest, with the prefix in any case ("SHA256:", as
// some tools print it) and the hex in either: the key authenticates, the
// digest string (which Caddy's config dump shows) does not. Before, any
// spelling but "sha256:" made the digest string itself a plaintext key.
func TestDigestPrefixInAnyCase(t *testing.T) {
	const real = "the-real-key-0123456789"
	hexDigest := strings.TrimPrefix(Digest(real), DigestPrefix)
	for _, configured := range []string{
		"sha256:" + hexDigest,
		"SHA256:" + strings.ToUpper(hexDigest),
		"Sha256:" + hexDigest,
	} {
		t.Run(configured[:7], func(t *testing.T) {
			p := &Provider{Keys: []Key{{Key: configured, Orgs: []string{"org-a"}}}}
			if err := p.Provision(caddy.Context{}); err != nil {
				t.Fatal(err)
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			for key, want := range map[string]bool{real: true, configured: false} {
				r := httptest.NewRequest("POST", "/orgs/org-a/proofs/oob", nil)
				r.Header.Set("X-API-Key", key)
				if _, err := p.Authenticate(r); (err == nil) != want {
					t.Errorf("X-API-Key %q authenticated: %v, want %v", key, err == nil, want)
				}
			}
		})
	}
}

// One key in two api_key providers (lines parted by another provider) is
// refused: the first would decide alone, the other's orgs never apply.
func TestDistinctAcrossProviders(t *testing.T) {
	provisioned := func(keys ...Key) *Provider {
		p := &Provider{Keys: keys}
		if err := p.Provision(caddy.Context{}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const k1, k2 = "first-key-0123456789", "second-key-0123456789"
	a := provisioned(Key{Key: k1, Orgs: []string{"org-a"}})
	b := provisioned(Key{Key: k2, Orgs: []string{"org-b"}})
	again := provisioned(Key{Key: Digest(k1), Orgs: []string{"org-b"}})
	if err := Distinct([]auth.Provider{a, b}); err != nil {
		t.Errorf("two providers of different keys: %v", err)
	}
	if err := Distinct([]auth.Provider{a, b, again}); err == nil || !strings.Contains(err.Error(), "providers 0 and 2") {
		t.Errorf("one key in providers 0 and 2: %v, want a refusal naming both", err)
	}
}
