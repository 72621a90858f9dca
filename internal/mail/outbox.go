package mail

import (
	"context"
	"errors"
	"path"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/store"
)

// ErrNotFound means the outbox holds no message with that id.
var ErrNotFound = store.ErrNotFound

// ErrTooLate is Cancel's answer for a message that is being sent or was sent.
var ErrTooLate = errors.New("mail: message is already being sent")

// maxFresh bounds the ids remembered between Enqueue and the deliverer's
// next wake-up; past it the deliverer rescans the whole outbox instead.
const maxFresh = 10_000

// Outbox is the durable queue of messages, in Caddy storage under
// proofgate/outbox/ (or proofgate/outbox/<queue>/). It is safe for
// concurrent use.
type Outbox struct {
	store    *store.Store
	storage  certmagic.Storage
	lockBase string
	guard    keyedGuard
	now      func() time.Time

	mu       sync.Mutex
	fresh    []string
	overflow bool
}

// NewOutbox returns the outbox of queue ("" for the shared default) in
// storage. Enqueue through the same Outbox the Deliverer was made with, so
// Notify finds new messages without rescanning the outbox.
func NewOutbox(storage certmagic.Storage, queue string) *Outbox {
	ns := "outbox"
	if queue != "" {
		ns = path.Join(ns, queue)
	}
	return &Outbox{
		store:    store.New(storage, ns),
		storage:  storage,
		lockBase: path.Join(store.Prefix, ns) + "/",
		guard:    keyedGuard{held: map[string]struct{}{}},
		now:      time.Now,
	}
}

// Enqueue stores m for delivery: one durable write. Once it returns nil the
// message will be attempted, even if the process restarts before that. The
// deliverer starts on it after Notify (or its next periodic scan, within a
// minute), so a caller that may still Cancel should Notify only when its
// request has succeeded. Errors wrap backend.ErrUnavailable when storage
// failed.
func (o *Outbox) Enqueue(ctx context.Context, m Message) error {
	if err := m.validate(); err != nil {
		return err
	}
	now := o.now().UTC()
	if m.CreatedAt.IsZero() {
		m.CreatedAt = now
	}
	doc := document{
		Message: m,
		Status: Status{
			State:       StateQueued,
			NextAttempt: now,
			CreatedAt:   m.CreatedAt,
			UpdatedAt:   now,
		},
	}
	if err := o.store.Put(ctx, m.ID, &doc); err != nil {
		return err
	}
	o.mu.Lock()
	if len(o.fresh) < maxFresh {
		o.fresh = append(o.fresh, m.ID)
	} else {
		o.overflow = true
	}
	o.mu.Unlock()
	return nil
}

// Cancel withdraws a message whose request failed after Enqueue. A queued
// (or failed) message is deleted; one being sent or already sent is not,
// and Cancel returns ErrTooLate. An unknown id is not an error.
func (o *Outbox) Cancel(ctx context.Context, id string) error {
	if !validName(id) {
		return nil
	}
	o.forget(id)
	release, err := o.guard.acquire(ctx, id)
	if err != nil {
		return err
	}
	defer release()
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := o.storage.Lock(lctx, o.lockName(id)); err != nil {
		return err
	}
	defer o.unlock(id)
	var doc document
	switch err := o.store.Get(ctx, id, &doc); {
	case errors.Is(err, ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	if doc.Status.State == StateSending || doc.Status.State == StateSent {
		return ErrTooLate
	}
	return o.store.Delete(ctx, id)
}

// Status returns the delivery status of message id, or ErrNotFound (also
// once a finished message has outlived its retention).
func (o *Outbox) Status(ctx context.Context, id string) (Status, error) {
	var doc document
	if err := o.store.Get(ctx, id, &doc); err != nil {
		return Status{}, err
	}
	return doc.Status, nil
}

// takeFresh returns the ids enqueued since the last call, and whether some
// were not remembered (the caller must then scan the whole outbox).
func (o *Outbox) takeFresh() ([]string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	ids, overflow := o.fresh, o.overflow
	o.fresh, o.overflow = nil, false
	return ids, overflow
}

func (o *Outbox) forget(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, f := range o.fresh {
		if f == id {
			o.fresh = append(o.fresh[:i], o.fresh[i+1:]...)
			return
		}
	}
}

func (o *Outbox) lockName(id string) string { return o.lockBase + id }

// tryLock takes the storage lock of message id without waiting long: a
// message locked elsewhere is being claimed by another instance, and this
// one has better things to do than wait for it.
func (o *Outbox) tryLock(ctx context.Context, id string) (bool, error) {
	name := o.lockName(id)
	if tl, ok := o.storage.(certmagic.TryLocker); ok {
		return tl.TryLock(ctx, name)
	}
	lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := o.storage.Lock(lctx, name); err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

func (o *Outbox) unlock(id string) {
	// A fresh context: the lock must be released even when the caller's
	// context has ended (Stop), or others would wait for it to go stale.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = o.storage.Unlock(ctx, o.lockName(id))
}

// keyedGuard is an in-process mutex per message id, so two goroutines of
// one process never claim (or claim and cancel) the same message at once
// without a round trip to the storage lock.
type keyedGuard struct {
	mu      sync.Mutex
	held    map[string]struct{}
	changed chan struct{} // closed and replaced on every release
}

// tryAcquire takes id's guard if it is free.
func (g *keyedGuard) tryAcquire(id string) (func(), bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, busy := g.held[id]; busy {
		return nil, false
	}
	g.held[id] = struct{}{}
	return func() { g.release(id) }, true
}

// acquire waits for id's guard until ctx ends.
func (g *keyedGuard) acquire(ctx context.Context, id string) (func(), error) {
	for {
		g.mu.Lock()
		if _, busy := g.held[id]; !busy {
			g.held[id] = struct{}{}
			g.mu.Unlock()
			return func() { g.release(id) }, nil
		}
		if g.changed == nil {
			g.changed = make(chan struct{})
		}
		changed := g.changed
		g.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (g *keyedGuard) release(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.held, id)
	if g.changed != nil {
		close(g.changed)
		g.changed = nil
	}
}
