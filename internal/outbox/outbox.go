package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/store"
)

// ErrNotFound means the outbox holds no message with that id.
var ErrNotFound = store.ErrNotFound

// ErrTooLate is Cancel's answer for a message that is being delivered or
// was delivered.
var ErrTooLate = errors.New("outbox: message is already being delivered")

// maxFresh bounds the ids remembered between Enqueue and the deliverer's
// next wake-up; past it the deliverer rescans the whole outbox instead.
const maxFresh = 10_000

// MaxMessage caps one message's payload, so a document stays small.
const MaxMessage = 1 << 20

// DefaultHold is how long a staged message (Stage) waits for its request
// to commit before it is delivered anyway: longer than any request (ten
// recipients through an agent at its 15 s timeout take under three
// minutes), shorter than the 15 minutes after which a waiting message
// pages (ProofgateOutboxStuck). It bounds the delay of a committed
// message whose release was lost with its process.
const DefaultHold = 5 * time.Minute

// Outbox is a durable queue of messages in Caddy storage under
// proofgate/<namespace>/. It is safe for concurrent use.
type Outbox struct {
	store    *store.Store
	storage  certmagic.Storage
	lockBase string
	guard    keyedGuard
	now      func() time.Time
	// released is shared by every Outbox of this storage and namespace in
	// the process.
	released *releaseSet

	mu       sync.Mutex
	fresh    []string
	overflow bool
}

// New returns the outbox under proofgate/<namespace>/ in storage. now is
// the clock (time.Now when nil). Enqueue through the same Outbox the
// Deliverer was made with, so Notify finds new messages without a rescan.
func New(storage certmagic.Storage, namespace string, now func() time.Time) *Outbox {
	if now == nil {
		now = time.Now
	}
	return &Outbox{
		store:    store.New(storage, namespace),
		storage:  storage,
		lockBase: path.Join(store.Prefix, "locks", namespace) + "/",
		guard:    keyedGuard{held: map[string]struct{}{}},
		now:      now,
		released: releasesOf(StorageKey(storage, namespace)),
	}
}

// Store returns the document store of the outbox (tests use it to plant
// documents).
func (o *Outbox) Store() *store.Store { return o.store }

// Enqueue stores a message of kind with payload (marshalled to JSON) under
// id: one durable write. The message is due at once: the next Notify()
// (or the periodic scan) hands it to a worker, whoever called Notify. Use
// Stage instead when the request that makes the message may still fail.
// Once Enqueue returns nil the message will be attempted, even if the
// process restarts first. Enqueueing an id again replaces the message and
// restarts its delivery (callers use deterministic ids to make a retried
// operation idempotent). Errors wrap backend.ErrUnavailable when storage
// failed.
func (o *Outbox) Enqueue(ctx context.Context, id, kind string, payload any) error {
	if err := o.put(ctx, id, kind, payload, false); err != nil {
		return err
	}
	o.remember(id)
	return nil
}

// Stage is Enqueue for a message whose request is still running: the
// message is held until that request commits and calls
// Deliverer.Notify(id), which releases it (and only it), or Cancel
// withdraws it. No other request's Notify, and no scan, hands it to a
// worker meanwhile. If the release never comes (the process died after
// the commit), the message is delivered anyway once the hold (DefaultHold)
// ends: a staged message is never lost, only late. Staging an id again
// replaces the message and holds it again.
func (o *Outbox) Stage(ctx context.Context, id, kind string, payload any) error {
	return o.put(ctx, id, kind, payload, true)
}

func (o *Outbox) put(ctx context.Context, id, kind string, payload any, held bool) error {
	if !ValidID(id) {
		return fmt.Errorf("outbox: message id %q is not 1-200 letters, digits, '-', '_' or '.'", id)
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("outbox: encoding message %s: %w", id, err)
	}
	if len(raw) > MaxMessage {
		return fmt.Errorf("outbox: message %s is larger than %d bytes", id, MaxMessage)
	}
	now := o.now().UTC()
	doc := Document{
		Kind:    kind,
		Message: raw,
		Held:    held,
		Status: Status{
			State:       StateQueued,
			NextAttempt: now,
			CreatedAt:   now,
			UpdatedAt:   now,
		},
	}
	if held {
		doc.Status.NextAttempt = now.Add(DefaultHold)
	}
	// Before the write: a release meant for an earlier message of this id
	// must not release this one (a claim reads the document first, then
	// the release).
	o.released.drop(id)
	return o.store.Put(ctx, id, &doc)
}

// Restage is Stage for an id a worker may be holding (a message staged
// again after an earlier attempt, or left by a request that died before
// its commit): it waits for the message's guard and storage lock, so a
// worker recording an outcome cannot overwrite the fresh message with the
// old one's. Like Stage, the message is held until Deliverer.Notify(id)
// or DeliverNow releases it, or its hold ends.
func (o *Outbox) Restage(ctx context.Context, id, kind string, payload any) error {
	if !ValidID(id) {
		return fmt.Errorf("outbox: message id %q is not 1-200 letters, digits, '-', '_' or '.'", id)
	}
	release, err := o.hold(ctx, id)
	if err != nil {
		return err
	}
	defer release()
	return o.Stage(ctx, id, kind, payload)
}

func (o *Outbox) remember(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.fresh) < maxFresh {
		o.fresh = append(o.fresh, id)
	} else {
		o.overflow = true
	}
}

// Cancel withdraws a message whose request failed after Stage (or
// Enqueue). A queued (or failed) message is deleted; one being delivered
// or already delivered is not, and Cancel returns ErrTooLate. An unknown
// id is not an error.
func (o *Outbox) Cancel(ctx context.Context, id string) error {
	if !ValidID(id) {
		return nil
	}
	o.forget(id)
	o.released.drop(id)
	release, err := o.hold(ctx, id)
	if err != nil {
		return err
	}
	defer release()
	var doc Document
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
	doc, err := o.Get(ctx, id)
	return doc.Status, err
}

// Get returns the stored document of message id, or ErrNotFound.
func (o *Outbox) Get(ctx context.Context, id string) (Document, error) {
	var doc Document
	err := o.store.Get(ctx, id, &doc)
	return doc, err
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

// maxReleased bounds the releases remembered per outbox; a release past
// it is not remembered, and its message goes out when its hold ends.
const maxReleased = 100_000

// releaseSet holds the ids of staged messages whose requests committed
// (Deliverer.Notify) and that no worker has claimed yet. It is kept per
// storage and namespace for the whole process, so a deliverer that
// replaces another (a reload with a new e-mail configuration) or that
// shares the outbox still honours a release; it is not durable: after a
// restart, released messages wait for the end of their hold.
type releaseSet struct {
	mu  sync.Mutex
	ids map[string]struct{}
}

var releaseSets sync.Map // StorageKey → *releaseSet

func releasesOf(key string) *releaseSet {
	v, _ := releaseSets.LoadOrStore(key, &releaseSet{ids: map[string]struct{}{}})
	return v.(*releaseSet)
}

func (r *releaseSet) add(ids []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		if len(r.ids) >= maxReleased {
			return
		}
		r.ids[id] = struct{}{}
	}
}

func (r *releaseSet) has(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.ids[id]
	return ok
}

func (r *releaseSet) drop(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.ids, id)
}

// hold takes message id's in-process guard, then its storage lock
// (waiting up to 10 s for it), so that no worker of any instance holds the
// message meanwhile; release lets go of both.
func (o *Outbox) hold(ctx context.Context, id string) (release func(), err error) {
	unguard, err := o.guard.acquire(ctx, id)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := o.storage.Lock(lctx, o.lockName(id)); err != nil {
		unguard()
		return nil, err
	}
	return func() { o.unlock(id); unguard() }, nil
}

// tryLock takes the storage lock of message id without waiting long: a
// message locked elsewhere is being claimed by another instance.
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
