// Package ttlcache is a small, bounded, concurrency-safe cache whose
// entries expire, with one fetch at a time per key: the cache in front of
// every document the verifier fetches from the network (DID documents,
// status lists), so a burst of presentations naming one issuer costs one
// request, and a flood of distinct names cannot grow memory without bound.
// Filled by its user instead (Put, Peek), it is also the gateway's bounded
// memory of record owners, observed states and records not yet ready.
package ttlcache

import (
	"container/list"
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Cache maps string keys to values of type V for a bounded time.
type Cache[V any] struct {
	ttl, negTTL time.Duration
	size        int
	now         func() time.Time

	// weigh, when set, is what a value costs (its bytes, say); the values
	// held together cost at most maxWeight (WithBudget).
	weigh     func(V) int64
	maxWeight int64

	mu     sync.Mutex
	order  *list.List // front = most recently stored
	items  map[string]*list.Element
	weight int64 // of the values held
	group  singleflight.Group
}

type entry[V any] struct {
	key     string
	val     V
	err     error
	expires time.Time
	weight  int64
}

// New returns a cache of at most size entries, each kept for ttl; failed
// fetches are remembered for negTTL (0: not at all), so a dead host is not
// asked again on every presentation.
func New[V any](size int, ttl, negTTL time.Duration) *Cache[V] {
	if size < 1 {
		size = 1
	}
	return &Cache[V]{ttl: ttl, negTTL: negTTL, size: size, now: time.Now, order: list.New(), items: map[string]*list.Element{}}
}

// WithBudget bounds what the values held cost together, as weigh counts
// it, besides their number: a cache whose values vary in size (status
// lists of a few bytes to megabytes) is then bounded in memory, not only
// in entries. The oldest go first; a value costing more than max alone is
// not kept. Call it before the cache is used.
func (c *Cache[V]) WithBudget(max int64, weigh func(V) int64) *Cache[V] {
	c.maxWeight, c.weigh = max, weigh
	return c
}

// SetClock replaces the clock (tests).
func (c *Cache[V]) SetClock(now func() time.Time) { c.now = now }

// MaxFetch bounds one fetch, whoever waits for it: a backstop, as each
// user's fetch sets its own, shorter timeout.
const MaxFetch = time.Minute

// Get returns the cached value of key, or calls fetch once for all
// concurrent callers and caches its result. fetch runs with a context of
// its own, bounded by MaxFetch and by nothing of any caller's: each
// caller stops waiting at its own deadline, and the fetch goes on for
// the others. Bound by the first caller's deadline, a fetch that ran out
// of that caller's time would be remembered as the source's failure
// (negTTL) for everyone, and every caller that joined it would share
// that deadline: a prover could time a verification out on purpose and
// have a status list, an issuer's DID document or an AnonCreds
// definition read as unavailable by the next ones.
func (c *Cache[V]) Get(ctx context.Context, key string, fetch func(context.Context) (V, error)) (V, error) {
	if v, err, ok := c.lookup(key); ok {
		return v, err
	}
	if err := ctx.Err(); err != nil {
		var zero V
		return zero, err // nobody waits: no fetch starts
	}
	ch := c.group.DoChan(key, func() (any, error) {
		if v, err, ok := c.lookup(key); ok {
			return v, err
		}
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), MaxFetch)
		defer cancel()
		v, err := fetch(fctx)
		c.store(key, v, err)
		return v, err
	})
	select {
	case r := <-ch:
		v, _ := r.Val.(V)
		return v, r.Err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

func (c *Cache[V]) lookup(key string) (V, error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero V
	el, ok := c.items[key]
	if !ok {
		return zero, nil, false
	}
	e := el.Value.(*entry[V])
	if !c.now().Before(e.expires) {
		c.remove(el)
		return zero, nil, false
	}
	return e.val, e.err, true
}

// remove drops an element; c.mu is held.
func (c *Cache[V]) remove(el *list.Element) {
	e := el.Value.(*entry[V])
	c.order.Remove(el)
	delete(c.items, e.key)
	c.weight -= e.weight
}

func (c *Cache[V]) store(key string, v V, err error) {
	ttl := c.ttl
	if err != nil {
		ttl = c.negTTL
	}
	if ttl <= 0 {
		return
	}
	var w int64
	if c.weigh != nil && err == nil {
		if w = c.weigh(v); w > c.maxWeight {
			return // alone past the budget: not kept
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.remove(el)
	}
	c.items[key] = c.order.PushFront(&entry[V]{key: key, val: v, err: err, expires: c.now().Add(ttl), weight: w})
	c.weight += w
	for c.order.Len() > c.size || (c.weigh != nil && c.weight > c.maxWeight) {
		c.remove(c.order.Back())
	}
}

// Peek returns the value cached for key, without fetching; false when
// there is none (or only a remembered failure).
func (c *Cache[V]) Peek(key string) (V, bool) {
	v, err, ok := c.lookup(key)
	return v, ok && err == nil
}

// Put caches v for key, for caches their user fills rather than a fetch.
func (c *Cache[V]) Put(key string, v V) { c.store(key, v, nil) }

// Delete forgets key.
func (c *Cache[V]) Delete(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.remove(el)
	}
}

// Len is the number of entries held (expired ones included until looked up).
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
