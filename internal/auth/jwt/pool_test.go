package jwt

import (
	"context"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// TestReloadKeepsCache plays a config reload: Caddy provisions the new
// config before cleaning up the old one.
func TestReloadKeepsCache(t *testing.T) {
	k := newRSAKey(t, "k1", 0)
	i := newIDP(t, k)
	tok := k.sign(t, claimsFor(nil))
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	cfg := func() *Provider {
		return &Provider{JWKSURL: i.url(), Issuer: testIssuer, Audience: []string{testAudience}}
	}

	old := cfg()
	if err := old.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Authenticate(bearer(tok)); err != nil {
		t.Fatal(err)
	}
	cache := old.remote

	next := cfg()
	if err := next.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if next.remote != cache {
		t.Fatal("the new config got a new cache instead of the pooled one")
	}
	if refs, ok := remotePool.References(old.remoteKey); !ok || refs != 2 {
		t.Fatalf("pool references = %d, %v; want 2", refs, ok)
	}
	key := old.remoteKey
	if err := old.Cleanup(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-cache.stopped:
		t.Fatal("cleaning up the old config stopped the cache the new one uses")
	default:
	}
	if _, err := next.Authenticate(bearer(tok)); err != nil {
		t.Fatalf("after reload: %v", err)
	}
	if n := i.fetches.Load(); n != 1 {
		t.Fatalf("fetches = %d, want 1: the reload must reuse the warm cache", n)
	}

	// A config with other fetch settings gets its own cache.
	other := cfg()
	other.FetchTimeout = caddy.Duration(2 * time.Second)
	if err := other.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	otherCache := other.remote
	if otherCache == cache {
		t.Fatal("different fetch settings share a cache")
	}
	if err := other.Cleanup(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-otherCache.stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("cleaning up the only user of a cache did not stop it")
	}

	if err := next.Cleanup(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-cache.stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the last Cleanup did not stop the cache's goroutines")
	}
	if _, ok := remotePool.References(key); ok {
		t.Fatal("the cache is still in the pool after the last Cleanup")
	}
	// Cleanup twice (Caddy may call it after a failed Provision) is harmless.
	if err := next.Cleanup(); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkAuthenticateWarm(b *testing.B) {
	for _, tc := range []struct {
		name string
		key  func(testing.TB) testKey
	}{
		{"RS256", func(t testing.TB) testKey { return newRSAKey(t, "k1", 0) }},
		{"ES256", func(t testing.TB) testKey { return newECKey(t, "k1") }},
		{"EdDSA", func(t testing.TB) testKey { return newEdKey(t, "k1") }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			k := tc.key(b)
			i := newIDP(b, k)
			p := remoteProvider(b, i, nil)
			r := bearer(k.sign(b, claimsFor(nil)))
			if _, err := p.Authenticate(r); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Authenticate(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
