package apikey

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
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
