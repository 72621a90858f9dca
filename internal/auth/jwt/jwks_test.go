package jwt

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/go-jose/go-jose/v4"
	"github.com/proofgate/proofgate/internal/auth"
)

func TestKeyRotation(t *testing.T) {
	k1 := newRSAKey(t, "k1", 0)
	k2 := newRSAKey(t, "k2", 1)
	i := newIDP(t, k1)
	p := remoteProvider(t, i, nil)

	if _, err := p.Authenticate(bearer(k1.sign(t, claimsFor(nil)))); err != nil {
		t.Fatalf("before rotation: %v", err)
	}
	// The IdP rotates: k2 signs from now on, k1 is withdrawn.
	i.setKeys(k2)
	time.Sleep(2 * time.Millisecond) // past min_refresh_interval (1ms)
	if _, err := p.Authenticate(bearer(k2.sign(t, claimsFor(nil)))); err != nil {
		t.Fatalf("new kid after rotation: %v", err)
	}
	if n := i.fetches.Load(); n != 2 {
		t.Errorf("fetches = %d, want 2 (first use, unknown kid)", n)
	}
	// The refetched set no longer holds k1.
	if _, err := p.Authenticate(bearer(k1.sign(t, claimsFor(nil)))); err == nil {
		t.Fatal("withdrawn key still accepted after refresh")
	}
}

func TestScheduledRefreshDropsWithdrawnKey(t *testing.T) {
	k1 := newRSAKey(t, "k1", 0)
	k2 := newRSAKey(t, "k2", 1)
	i := newIDP(t, k1, k2)
	p := remoteProvider(t, i, func(p *Provider) {
		p.RefreshInterval = caddy.Duration(time.Second)
		p.MinRefreshInterval = caddy.Duration(time.Second)
	})
	old := k1.sign(t, claimsFor(nil))
	if _, err := p.Authenticate(bearer(old)); err != nil {
		t.Fatal(err)
	}
	i.setKeys(k2) // k1 revoked at the IdP
	deadline := time.Now().Add(10 * time.Second)
	for i.fetches.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("no scheduled refresh within 10s of a 1s refresh_interval")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Give the worker the moment between serving the fetch and storing it.
	deadline = time.Now().Add(2 * time.Second)
	for {
		_, err := p.Authenticate(bearer(old))
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("revoked key still accepted after the scheduled refresh")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestIdPDown(t *testing.T) {
	k1 := newRSAKey(t, "k1", 0)
	k2 := newECKey(t, "k2")
	i := newIDP(t, k1)
	p := remoteProvider(t, i, nil)
	tok := k1.sign(t, claimsFor(nil))
	if _, err := p.Authenticate(bearer(tok)); err != nil {
		t.Fatal(err)
	}

	i.setKeys(k1, k2)
	i.down.Store(true)
	time.Sleep(2 * time.Millisecond)
	if _, err := p.Authenticate(bearer(tok)); err != nil {
		t.Fatalf("cached key refused while the IdP is down: %v", err)
	}
	_, err := p.Authenticate(bearer(k2.sign(t, claimsFor(nil))))
	var te *TokenError
	if !errors.As(err, &te) || te.Reason != "unknown signing key" {
		t.Fatalf("new kid while IdP down: %v", err)
	}
	if n := i.fetches.Load(); n < 2 {
		t.Fatalf("the unknown kid did not cause a fetch (fetches %d)", n)
	}
	// A failed fetch leaves the last good set in place.
	if _, err := p.Authenticate(bearer(tok)); err != nil {
		t.Fatalf("cached key refused after a failed refresh: %v", err)
	}

	// Unreachable rather than failing: same outcome.
	i.srv.Close()
	time.Sleep(2 * time.Millisecond)
	if _, err := p.Authenticate(bearer(tok)); err != nil {
		t.Fatalf("cached key refused with the IdP unreachable: %v", err)
	}
}

func TestIdPDownAtFirstUse(t *testing.T) {
	k1 := newRSAKey(t, "k1", 0)
	i := newIDP(t, k1)
	i.down.Store(true)
	p := remoteProvider(t, i, nil)
	tok := k1.sign(t, claimsFor(nil))
	// With no key set ever fetched the token cannot be judged: unavailable
	// (503), not invalid (401).
	if _, err := p.Authenticate(bearer(tok)); !errors.Is(err, auth.ErrUnavailable) {
		t.Fatalf("with no keys ever fetched: %v", err)
	}
	i.down.Store(false)
	time.Sleep(2 * time.Millisecond)
	if _, err := p.Authenticate(bearer(tok)); err != nil {
		t.Fatalf("after the IdP came back: %v", err)
	}
}

func TestUnknownKidRateLimitedAndCollapsed(t *testing.T) {
	k1 := newRSAKey(t, "k1", 0)
	i := newIDP(t, k1)
	i.delay = 200 * time.Millisecond
	p := remoteProvider(t, i, func(p *Provider) { p.MinRefreshInterval = caddy.Duration(10 * time.Minute) })
	tok := k1.sign(t, claimsFor(nil))

	// Concurrent first requests share the first fetch: none is refused
	// for want of keys, and the IdP sees one request.
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Go(func() {
			_, err := p.Authenticate(bearer(tok))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent first use: %v", err)
		}
	}
	// One fetch is ours; httprc's scheduler may add one more: Refresh sets
	// the resource's next run to the epoch while its synchronous fetch is
	// in flight, and a scheduler tick landing in that window (seen on a
	// loaded machine) fetches too. What matters is that 20 callers do not
	// make 20 fetches.
	first := i.fetches.Load()
	if first < 1 || first > 2 {
		t.Fatalf("fetches after 20 concurrent first requests = %d, want 1 (2 at most)", first)
	}

	// Made-up kids cannot make the gateway hammer the IdP.
	for n := range 50 {
		k := newECKey(t, "made-up-"+string(rune('a'+n%26)))
		if _, err := p.Authenticate(bearer(k.sign(t, claimsFor(nil)))); err == nil {
			t.Fatal("made-up kid accepted")
		}
	}
	if n := i.fetches.Load(); n != first {
		t.Fatalf("fetches after 50 unknown kids within min_refresh_interval = %d, want none beyond the first %d", n, first)
	}
}

func TestJWKSLimits(t *testing.T) {
	k1 := newRSAKey(t, "k1", 0)
	tok := k1.sign(t, claimsFor(nil))

	t.Run("size cap", func(t *testing.T) {
		i := newIDP(t, k1)
		p := remoteProvider(t, i, func(p *Provider) { p.MaxJWKSSize = 100 })
		if _, err := p.Authenticate(bearer(tok)); err == nil {
			t.Fatal("key taken from a JWKS over max_jwks_size")
		}
	})
	t.Run("timeout", func(t *testing.T) {
		i := newIDP(t, k1)
		i.delay = 500 * time.Millisecond
		p := remoteProvider(t, i, func(p *Provider) { p.FetchTimeout = caddy.Duration(100 * time.Millisecond) })
		if _, err := p.Authenticate(bearer(tok)); err == nil {
			t.Fatal("key taken from a JWKS slower than fetch_timeout")
		}
	})
	t.Run("bad keys skipped", func(t *testing.T) {
		i := newIDP(t)
		pub, _ := jsonKey(k1.public())
		i.body = []byte(`{"keys":[{"kty":"oct","k":"c2VjcmV0","kid":"k1"},{"kty":"weird","kid":"x"},` +
			`{"kty":"RSA","use":"enc","kid":"k1","n":"AQAB","e":"AQAB"},` + pub + `]}`)
		p := remoteProvider(t, i, nil)
		if _, err := p.Authenticate(bearer(tok)); err != nil {
			t.Fatalf("good key next to unusable ones: %v", err)
		}
		set := p.remote.current()
		if len(set.keys) != 1 || set.skipped != 3 {
			t.Fatalf("kept %d keys, skipped %d; want 1 and 3", len(set.keys), set.skipped)
		}
	})
}

func jsonKey(k jose.JSONWebKey) (string, error) {
	b, err := k.MarshalJSON()
	return string(b), err
}
