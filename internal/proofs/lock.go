package proofs

import (
	"context"
	"sync"
	"time"
)

// keyedMutex serializes work per key (a record id) inside one process and
// forgets keys nobody holds, so it does not grow with the record count.
type keyedMutex struct {
	mu sync.Mutex
	m  map[string]*keyedEntry
}

type keyedEntry struct {
	held chan struct{} // holds one token while the key is locked
	refs int           // holders and waiters
}

// lock blocks until key is free and returns its unlock function.
func (k *keyedMutex) lock(key string) (unlock func()) {
	e := k.ref(key)
	e.held <- struct{}{}
	return k.unlocker(key, e)
}

// lockCtx is lock giving up when ctx ends, with ctx.Err(): a caller
// with a deadline (an outcome noted in the background, bounded so that
// Close never waits behind a holder that does not let go) or whose client
// went away must not wait for good. No timer: ctx alone bounds it.
func (k *keyedMutex) lockCtx(ctx context.Context, key string) (unlock func(), err error) {
	e := k.ref(key)
	// A free key is taken even with ctx ended, as lock takes it: the
	// wait is what ctx bounds.
	select {
	case e.held <- struct{}{}:
		return k.unlocker(key, e), nil
	default:
	}
	select {
	case e.held <- struct{}{}:
		return k.unlocker(key, e), nil
	case <-ctx.Done():
	}
	k.unref(key, e)
	return nil, ctx.Err()
}

// lockWithin is lock waiting at most wait, and only while ctx lives: ok
// is false when it gave up. Work that a sender can repeat at will (a
// presentation delivered again and again) must not queue without bound
// behind a slow holder.
func (k *keyedMutex) lockWithin(ctx context.Context, key string, wait time.Duration) (unlock func(), ok bool) {
	e := k.ref(key)
	select {
	case e.held <- struct{}{}:
		return k.unlocker(key, e), true
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case e.held <- struct{}{}:
		return k.unlocker(key, e), true
	case <-t.C:
	case <-ctx.Done():
	}
	k.unref(key, e)
	return nil, false
}

// ref finds or makes key's entry and counts the caller on it.
func (k *keyedMutex) ref(key string) *keyedEntry {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = make(map[string]*keyedEntry)
	}
	e := k.m[key]
	if e == nil {
		e = &keyedEntry{held: make(chan struct{}, 1)}
		k.m[key] = e
	}
	e.refs++
	return e
}

// unref forgets the caller, and the entry once nobody holds or awaits it.
func (k *keyedMutex) unref(key string, e *keyedEntry) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if e.refs--; e.refs == 0 {
		delete(k.m, key)
	}
}

func (k *keyedMutex) unlocker(key string, e *keyedEntry) func() {
	return func() {
		<-e.held
		k.unref(key, e)
	}
}
