package agent

import (
	"context"
	"sync"

	"golang.org/x/sync/singleflight"
)

// FetchFunc obtains a fresh token for tenant from the agent.
type FetchFunc func(ctx context.Context, tenant string) (string, error)

// Tokens hands out per-tenant tokens: a configured one, or one fetched
// from the agent and cached until the agent refuses it.
type Tokens struct {
	static map[string]string
	fetch  FetchFunc

	mu    sync.Mutex
	cache map[string]string
	group singleflight.Group
}

// NewTokens returns Tokens with the configured tokens and, if fetch is not
// nil, the means to get the others.
func NewTokens(static map[string]string, fetch FetchFunc) *Tokens {
	return &Tokens{static: static, fetch: fetch, cache: map[string]string{}}
}

// ErrNoToken means no token is configured for the tenant and none can be
// fetched.
var ErrNoToken = &noTokenError{}

type noTokenError struct{}

func (*noTokenError) Error() string { return "no token for this tenant" }

// Get returns the token for tenant. Concurrent misses share one fetch.
func (t *Tokens) Get(ctx context.Context, tenant string) (string, error) {
	if tok, ok := t.static[tenant]; ok {
		return tok, nil
	}
	t.mu.Lock()
	tok, ok := t.cache[tenant]
	t.mu.Unlock()
	if ok {
		return tok, nil
	}
	if t.fetch == nil {
		return "", ErrNoToken
	}
	v, err, _ := t.group.Do(tenant, func() (any, error) {
		// The fetch is shared: the first caller's going away must not
		// fail the others who wait on it (the client's own timeout still
		// bounds the call).
		tok, err := t.fetch(context.WithoutCancel(ctx), tenant)
		if err != nil {
			return "", err
		}
		t.mu.Lock()
		t.cache[tenant] = tok
		t.mu.Unlock()
		return tok, nil
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// Renewable drops token, which the agent refused, and reports whether a
// fresh one can be fetched. Only the refused token is dropped, so callers
// that raced on a renewal don't throw away its result.
func (t *Tokens) Renewable(tenant, token string) bool {
	if _, ok := t.static[tenant]; ok || t.fetch == nil {
		return false
	}
	t.mu.Lock()
	if t.cache[tenant] == token {
		delete(t.cache, tenant)
	}
	t.mu.Unlock()
	return true
}
