// Package idempotency makes a create safe to retry (the Idempotency-Key
// request header of draft-ietf-httpapi-idempotency-key-header, with
// Stripe's semantics): the first request with a key runs, a retry with the
// same key and the same body gets the first answer again, a retry with
// another body is refused, and a retry while the first still runs is told
// so. Entries live in Caddy storage under proofgate/idempotency/, so
// instances sharing the storage agree; the short check-and-claim step runs
// under the storage lock of the entry.
package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/store"
)

// Namespace is the storage namespace: keys live under proofgate/idempotency/.
const Namespace = "idempotency"

// DefaultTTL is how long an answer is kept for replay.
const DefaultTTL = 24 * time.Hour

// Lease is how long a request may hold its key in progress. A claim older
// than this belongs to an instance that died mid-request (every backend
// call has a shorter timeout), and the key may be claimed again.
const Lease = 2 * time.Minute

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

// Entry is one stored key: a claim while the request runs, then its answer.
type Entry struct {
	// Fingerprint is the SHA-256 of what the request asked for (its query
	// and body), hex.
	Fingerprint string    `json:"fingerprint"`
	Done        bool      `json:"done"`
	StartedAt   time.Time `json:"startedAt"`
	ExpiresAt   time.Time `json:"expiresAt"`
	// Status and Body are the first answer, replayed as they were.
	Status int    `json:"status,omitempty"`
	Body   []byte `json:"body,omitempty"`
}

// Store keeps idempotency keys.
type Store struct {
	store *store.Store
	ttl   time.Duration
	now   func() time.Time

	lastSweep atomic.Int64 // unix nanoseconds
}

// New returns a Store keeping answers for ttl (DefaultTTL when 0).
func New(s *store.Store, ttl time.Duration) *Store {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Store{store: s, ttl: ttl, now: time.Now}
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

// Claim is a running request's hold on its key.
type Claim struct {
	s     *Store
	name  string
	entry Entry
}

// Begin looks the key up in its scope. It returns:
//   - (entry, nil, nil) with entry.Done: the answer to replay;
//   - (nil, claim, nil): the caller runs the request and then calls
//     claim.Complete or claim.Release;
//   - ErrInProgress, ErrMismatch, or a storage error (backend.ErrUnavailable).
func (s *Store) Begin(ctx context.Context, principal, org, key, fingerprint string) (*Entry, *Claim, error) {
	s.maybeSweep(ctx)
	n := name(principal, org, key)
	storage := s.store.Storage()
	lockName := s.store.Key(n)
	lctx, cancel := context.WithTimeout(ctx, lockTimeout)
	defer cancel()
	if err := storage.Lock(lctx, lockName); err != nil {
		return nil, nil, fmt.Errorf("%w: locking idempotency key: %w", backend.ErrUnavailable, err)
	}
	defer storage.Unlock(context.WithoutCancel(ctx), lockName) //nolint:errcheck // a lost unlock expires

	now := s.now().UTC()
	var e Entry
	err := s.store.Get(ctx, n, &e)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, nil, err
	case now.After(e.ExpiresAt):
		// Expired: as if absent.
	case e.Fingerprint != fingerprint:
		return nil, nil, ErrMismatch
	case e.Done:
		return &e, nil, nil
	case now.Sub(e.StartedAt) < Lease:
		return nil, nil, ErrInProgress
	}
	claim := &Claim{s: s, name: n, entry: Entry{Fingerprint: fingerprint, StartedAt: now, ExpiresAt: now.Add(s.ttl)}}
	if err := s.store.Put(ctx, n, claim.entry); err != nil {
		return nil, nil, err
	}
	return nil, claim, nil
}

// Complete stores the answer for replay. It does not use the request's
// context: the answer must be kept even if the caller has gone, since that
// is exactly when it will retry.
func (c *Claim) Complete(ctx context.Context, status int, body []byte) error {
	c.entry.Done, c.entry.Status, c.entry.Body = true, status, body
	return c.s.store.Put(context.WithoutCancel(ctx), c.name, c.entry)
}

// Release gives the key up: the request failed without making anything,
// and a retry must run it again.
func (c *Claim) Release(ctx context.Context) error {
	return c.s.store.Delete(context.WithoutCancel(ctx), c.name)
}

// sweepInterval is how often one instance looks for expired entries.
const sweepInterval = time.Hour

// maxSweep bounds one sweep's deletions, so that it stays cheap.
const maxSweep = 1000

// maybeSweep deletes expired entries, at most once per sweepInterval, in
// the background.
func (s *Store) maybeSweep(ctx context.Context) {
	now := s.now()
	last := s.lastSweep.Load()
	if last != 0 && now.Sub(time.Unix(0, last)) < sweepInterval {
		return
	}
	if !s.lastSweep.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	go s.Sweep(context.WithoutCancel(ctx)) //nolint:errcheck // best effort; the next sweep retries
}

// Sweep deletes up to maxSweep expired entries and returns how many.
func (s *Store) Sweep(ctx context.Context) (int, error) {
	names, err := s.store.List(ctx)
	if err != nil {
		return 0, err
	}
	now := s.now()
	deleted := 0
	for _, n := range names {
		if deleted >= maxSweep {
			break
		}
		var e Entry
		if err := s.store.Get(ctx, n, &e); err != nil || !now.After(e.ExpiresAt) {
			continue
		}
		if s.deleteIfExpired(ctx, n) {
			deleted++
		}
	}
	return deleted, nil
}

// deleteIfExpired deletes an entry under its lock, after reading it again:
// Begin may have claimed the key anew since the sweep looked.
func (s *Store) deleteIfExpired(ctx context.Context, n string) bool {
	storage := s.store.Storage()
	lockName := s.store.Key(n)
	lctx, cancel := context.WithTimeout(ctx, lockTimeout)
	defer cancel()
	if err := storage.Lock(lctx, lockName); err != nil {
		return false
	}
	defer storage.Unlock(context.WithoutCancel(ctx), lockName) //nolint:errcheck // a lost unlock expires
	var e Entry
	if err := s.store.Get(ctx, n, &e); err != nil || !s.now().After(e.ExpiresAt) {
		return false
	}
	return s.store.Delete(ctx, n) == nil
}
