// Package idempotency makes a create safe to retry (the Idempotency-Key
// request header of draft-ietf-httpapi-idempotency-key-header, with
// Stripe's semantics): the first request with a key runs, a retry with the
// same key and the same body gets the first answer again, a retry with
// another body is refused, and a retry while the first still runs is told
// so. Entries live in Caddy storage under proofgate/idempotency/, so
// instances sharing the storage agree; the short check-and-claim step runs
// under the storage lock of the entry.
//
// A running request holds its key by a claim: an entry carrying the
// claim's random token and a lease that the request renews while it runs
// (every Lease/3). Only a claim whose lease ran out, because the instance
// holding it died or lost the storage for a whole Lease, is taken over by a
// retry; and Complete and Release change the entry only while it still
// holds their token, so a request that lost its key never overwrites or
// deletes its successor's.
package idempotency

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/store"
	"github.com/proofgate/proofgate/internal/sweeper"
)

// Namespace is the storage namespace: keys live under proofgate/idempotency/.
const Namespace = "idempotency"

// DefaultTTL is how long an answer is kept for replay.
const DefaultTTL = 24 * time.Hour

// Lease is how long a claim holds its key without being renewed. The
// running request renews it every Lease/3 (Begin starts the renewal,
// Complete and Release stop it), so a live claim is never taken over
// however long its request runs; a claim not renewed for Lease belongs to
// an instance that died mid-request (or lost the storage that long), and
// the key may be claimed again.
const Lease = 2 * time.Minute

// renewEvery is how often a running request renews its lease: a third of
// it, so that two renewals in a row may fail (a storage hiccup, a slow
// lock) before the claim can be taken over.
const renewEvery = Lease / 3

// MaxKeyLength caps the header value (Stripe allows 255 characters).
const MaxKeyLength = 255

// lockTimeout bounds the wait for another instance's claim step.
const lockTimeout = 10 * time.Second

// Errors of Begin.
var (
	// ErrInProgress: a request with this key is still running (409).
	ErrInProgress = errors.New("a request with this Idempotency-Key is still in progress; retry later")
	// ErrMismatch: the key was used with another request body (422).
	ErrMismatch = errors.New("this Idempotency-Key was already used with a different request")
)

// ErrClaimLost is returned by Claim.Complete and Claim.Release when the
// key no longer holds the claim: its lease ran out unrenewed and a retry
// took the key over (or the claim was already completed or released).
// Nothing was written: the entry is the new owner's. The caller can only
// log it; its answer is not kept for replay.
var ErrClaimLost = errors.New("the Idempotency-Key claim was lost (its lease ran out and another request took the key over, or the claim had already ended); the entry was left as it was")

// Entry is one stored key: a claim while the request runs, then its answer.
type Entry struct {
	// Fingerprint is the SHA-256 of what the request asked for (its query
	// and body), hex.
	Fingerprint string    `json:"fingerprint"`
	Done        bool      `json:"done"`
	StartedAt   time.Time `json:"startedAt"`
	// ExpiresAt ends a done entry: its answer is replayed until then
	// (idempotency_ttl after it was stored). It does not end a claim,
	// which lives by its lease alone, however short the TTL; a claim's
	// ExpiresAt is only kept no earlier than its LeaseUntil, so that an
	// older proofgate sharing the storage never sweeps a live claim.
	ExpiresAt time.Time `json:"expiresAt"`
	// Token identifies the claim that wrote the entry (random, unique per
	// Begin): renewal, Complete and Release change the entry only while
	// it still holds their claim's token. Empty in entries written
	// before tokens existed; no claim can then act on them, and they end
	// as they did (see LeaseUntil).
	Token string `json:"token,omitempty"`
	// LeaseUntil ends a claim unless its request renews it first. Zero in
	// claims written before leases were renewed: those end at StartedAt
	// plus Lease, as they did.
	LeaseUntil time.Time `json:"leaseUntil,omitzero"`
	// Status and Body are the first answer, replayed as they were.
	Status int    `json:"status,omitempty"`
	Body   []byte `json:"body,omitempty"`
}

// leaseEnd is when a claim may be taken over.
func (e *Entry) leaseEnd() time.Time {
	if e.LeaseUntil.IsZero() {
		return e.StartedAt.Add(Lease)
	}
	return e.LeaseUntil
}

// expired reports whether the entry counts as absent at now: a done entry
// after its ExpiresAt, a claim once its lease has run out.
func (e *Entry) expired(now time.Time) bool {
	if e.Done {
		return now.After(e.ExpiresAt)
	}
	return !now.Before(e.leaseEnd())
}

// sweepable reports whether the sweeper may delete the entry at now: it
// has expired and, for a claim, its ExpiresAt has passed too. A claim
// whose lease ran out unrenewed is kept until then (as it always was), so
// that a request that lost the storage for a while, but whose key nobody
// took over, can still store its answer.
func (e *Entry) sweepable(now time.Time) bool {
	return e.expired(now) && now.After(e.ExpiresAt)
}

// Store keeps idempotency keys.
type Store struct {
	store *store.Store
	ttl   time.Duration
	now   func() time.Time
	// tick returns the ticks of a claim's lease renewal and a function
	// stopping them (a time.Ticker; tests drive renewals by hand).
	tick func(time.Duration) (<-chan time.Time, func())
	// renewed, if set, is told the result of each renewal the background
	// loop makes (tests wait on it).
	renewed func(error)
}

// New returns a Store keeping answers for ttl (DefaultTTL when 0).
func New(s *store.Store, ttl time.Duration) *Store {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Store{store: s, ttl: ttl, now: time.Now, tick: ticker}
}

// ticker is the default Store.tick.
func ticker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// TTL is how long answers are kept.
func (s *Store) TTL() time.Duration { return s.ttl }

// ParseKey reads the Idempotency-Key header: absent is ("", nil); repeated,
// empty, too long or not printable ASCII is an error naming the header.
// The draft makes the value a structured-field string ("..."); a bare
// token, as Stripe's clients send it, is taken too.
func ParseKey(h http.Header) (string, error) {
	vals := h.Values("Idempotency-Key")
	if len(vals) == 0 {
		return "", nil
	}
	if len(vals) > 1 {
		return "", errors.New("Idempotency-Key: give the header once")
	}
	k := strings.TrimSpace(vals[0])
	if len(k) >= 2 && k[0] == '"' && k[len(k)-1] == '"' {
		k = k[1 : len(k)-1]
	}
	if k == "" {
		return "", errors.New("Idempotency-Key: must not be empty")
	}
	if len(k) > MaxKeyLength {
		return "", fmt.Errorf("Idempotency-Key: must be at most %d characters", MaxKeyLength)
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e || k[i] == '"' || k[i] == '\\' {
			return "", errors.New("Idempotency-Key: only printable ASCII without spaces, quotes or backslashes")
		}
	}
	return k, nil
}

// Fingerprint digests the parts of a request that must match for a retry.
func Fingerprint(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		var n [8]byte
		l := len(p)
		for i := range n {
			n[i] = byte(l >> (8 * i))
		}
		h.Write(n[:])
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// name is the storage name of a key in its scope: the caller's identity
// and the org, so that one caller's key never meets another's.
func name(principal, org, key string) string {
	h := sha256.New()
	for _, s := range []string{principal, org, key} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "k-" + hex.EncodeToString(h.Sum(nil))
}

// Claim is a running request's hold on its key. Begin starts renewing its
// lease in the background; the caller must end it with Complete or
// Release (exactly one of them), which stop the renewal.
type Claim struct {
	s     *Store
	name  string
	entry Entry
	// stop cancels the renewal loop, which closes done when it returns.
	stop context.CancelFunc
	done chan struct{}
	// ended is set by the first Complete or Release.
	mu    sync.Mutex
	ended bool
}

// lock takes the storage lock of an entry, waiting at most lockTimeout.
func (s *Store) lock(ctx context.Context, n string) (unlock func(), err error) {
	storage := s.store.Storage()
	lockName := s.store.Key(n)
	lctx, cancel := context.WithTimeout(ctx, lockTimeout)
	defer cancel()
	if err := storage.Lock(lctx, lockName); err != nil {
		return nil, fmt.Errorf("%w: locking idempotency key: %w", backend.ErrUnavailable, err)
	}
	return func() {
		storage.Unlock(context.WithoutCancel(ctx), lockName) //nolint:errcheck // a lost unlock expires
	}, nil
}

// Begin looks the key up in its scope. It returns:
//   - (entry, nil, nil) with entry.Done: the answer to replay;
//   - (nil, claim, nil): the caller runs the request and then calls
//     claim.Complete or claim.Release; until then the claim's lease is
//     renewed in the background, so the key stays the caller's however
//     long the request takes;
//   - ErrInProgress, ErrMismatch, or a storage error (backend.ErrUnavailable).
func (s *Store) Begin(ctx context.Context, principal, org, key, fingerprint string) (*Entry, *Claim, error) {
	n := name(principal, org, key)
	unlock, err := s.lock(ctx, n)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()

	now := s.now().UTC()
	var e Entry
	err = s.store.Get(ctx, n, &e)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, nil, err
	case e.expired(now):
		// An answer past its TTL, or a claim whose holder stopped
		// renewing it: as if absent.
	case e.Fingerprint != fingerprint:
		return nil, nil, ErrMismatch
	case e.Done:
		return &e, nil, nil
	default:
		return nil, nil, ErrInProgress
	}
	lease := now.Add(Lease)
	claim := &Claim{s: s, name: n, entry: Entry{
		Fingerprint: fingerprint, StartedAt: now, Token: rand.Text(),
		LeaseUntil: lease, ExpiresAt: later(now.Add(s.ttl), lease),
	}}
	if err := s.store.Put(ctx, n, claim.entry); err != nil {
		return nil, nil, err
	}
	// The renewal outlives the request's context (the request may go on,
	// and must be able to store its answer, after its caller has gone);
	// Complete and Release end it.
	rctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	claim.stop, claim.done = stop, make(chan struct{})
	ticks, stopTicks := s.tick(renewEvery)
	go claim.keep(rctx, ticks, stopTicks)
	return nil, claim, nil
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// keep renews the claim's lease at each tick until ctx is cancelled
// (Complete, Release) or the key turns out no longer to be the claim's.
// A renewal that fails for another reason (storage unavailable) is tried
// again at the next tick.
func (c *Claim) keep(ctx context.Context, ticks <-chan time.Time, stopTicks func()) {
	defer close(c.done)
	defer stopTicks()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
		}
		err := c.renew(ctx)
		if c.s.renewed != nil {
			c.s.renewed(err)
		}
		if errors.Is(err, ErrClaimLost) {
			return
		}
	}
}

// renew extends the claim's lease to Lease from now, if the key still
// holds the claim.
func (c *Claim) renew(ctx context.Context) error {
	return c.update(ctx, func(e *Entry, now time.Time) bool {
		e.LeaseUntil = now.Add(Lease)
		e.ExpiresAt = later(e.ExpiresAt, e.LeaseUntil)
		return true
	})
}

// update changes the stored entry under its lock, if it still holds the
// claim (the claim's token, not done): change edits it and returns true
// to store it, false to delete it. Otherwise it returns ErrClaimLost and
// writes nothing.
func (c *Claim) update(ctx context.Context, change func(e *Entry, now time.Time) bool) error {
	unlock, err := c.s.lock(ctx, c.name)
	if err != nil {
		return err
	}
	defer unlock()
	var e Entry
	switch err := c.s.store.Get(ctx, c.name, &e); {
	case errors.Is(err, store.ErrNotFound):
		return ErrClaimLost
	case err != nil:
		return err
	case e.Done || e.Token != c.entry.Token:
		return ErrClaimLost
	}
	if !change(&e, c.s.now().UTC()) {
		return c.s.store.Delete(ctx, c.name)
	}
	return c.s.store.Put(ctx, c.name, e)
}

// end stops the renewal and waits for it to return, so that no renewal
// runs after Complete or Release; it reports false if the claim had
// already been ended.
func (c *Claim) end() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return false
	}
	c.ended = true
	c.stop()
	<-c.done
	return true
}

// Complete stores the answer for replay, kept for the store's TTL from
// now. It does not use the request's context: the answer must be kept
// even if the caller has gone, since that is exactly when it will retry.
// It returns ErrClaimLost, writing nothing, if the key is no longer this
// claim's.
func (c *Claim) Complete(ctx context.Context, status int, body []byte) error {
	if !c.end() {
		return ErrClaimLost
	}
	return c.update(context.WithoutCancel(ctx), func(e *Entry, now time.Time) bool {
		e.Done, e.Status, e.Body = true, status, body
		e.ExpiresAt, e.LeaseUntil = now.Add(c.s.ttl), time.Time{}
		return true
	})
}

// Release gives the key up: the request failed without making anything,
// and a retry must run it again. It returns ErrClaimLost, deleting
// nothing, if the key is no longer this claim's.
func (c *Claim) Release(ctx context.Context) error {
	if !c.end() {
		return ErrClaimLost
	}
	return c.update(context.WithoutCancel(ctx), func(*Entry, time.Time) bool { return false })
}

// SweepTask is the clean-up of expired entries, run by the gateway's
// sweeper (one pass at a time across instances, a bounded number of
// entries looked at per pass, continuing where the last pass stopped).
func (s *Store) SweepTask() sweeper.Task {
	var cursor sweeper.Cursor
	return sweeper.Task{Name: "idempotency_keys", Run: func(ctx context.Context, _ time.Time, budget int) (map[string]int, error) {
		names, err := cursor.Next(ctx, s.store, budget)
		if err != nil {
			return nil, err
		}
		return map[string]int{"idempotency_keys": s.sweepNames(ctx, names)}, nil
	}}
}

// Sweep deletes every expired entry and returns how many.
func (s *Store) Sweep(ctx context.Context) (int, error) {
	names, err := s.store.List(ctx)
	if err != nil {
		return 0, err
	}
	return s.sweepNames(ctx, names), nil
}

// sweepNames deletes the expired entries among names (see sweepable).
func (s *Store) sweepNames(ctx context.Context, names []string) int {
	now := s.now()
	deleted := 0
	for _, n := range names {
		var e Entry
		if err := s.store.Get(ctx, n, &e); err != nil || !e.sweepable(now) {
			continue
		}
		if s.deleteIfExpired(ctx, n) {
			deleted++
		}
	}
	return deleted
}

// deleteIfExpired deletes an entry under its lock, after reading it again:
// Begin may have claimed the key anew, or its claim renewed its lease,
// since the sweep looked.
func (s *Store) deleteIfExpired(ctx context.Context, n string) bool {
	unlock, err := s.lock(ctx, n)
	if err != nil {
		return false
	}
	defer unlock()
	var e Entry
	if err := s.store.Get(ctx, n, &e); err != nil || !e.sweepable(s.now()) {
		return false
	}
	return s.store.Delete(ctx, n) == nil
}
