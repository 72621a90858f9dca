// Package shorturl keeps the short invitation URLs the gateway hands out
// when a caller asks for isShortenUrl (RFC 0434 "URL shortening") and the
// backend does not keep them in its own records (backend.ShortURLKeeper,
// as the local verifier does): one storage document per URL, holding the
// invitation and its long URL, until it expires.
package shorturl

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"github.com/proofgate/proofgate/internal/store"
)

// ErrNotFound means the id is unknown or its URL has expired.
var ErrNotFound = errors.New("short URL not found or expired")

// idBytes is the entropy of an id: 96 random bits, 16 base64url characters,
// far beyond guessing while keeping the URL short enough for a QR code.
const idBytes = 12

// Entry is one stored short URL.
type Entry struct {
	LongURL    string          `json:"longUrl"`
	Invitation json.RawMessage `json:"invitation"`
	OrgID      string          `json:"orgId"`
	CreatedAt  time.Time       `json:"createdAt"`
	ExpiresAt  time.Time       `json:"expiresAt"`
}

// Service creates and resolves short URLs.
type Service struct {
	store *store.Store
	ttl   time.Duration
	now   func() time.Time
}

// New returns a Service storing under proofgate/shorturls/ whose URLs live
// for ttl.
func New(s *store.Store, ttl time.Duration) *Service {
	return &Service{store: s, ttl: ttl, now: time.Now}
}

// Create stores a new short URL for the invitation and returns its id and
// expiry.
func (s *Service) Create(ctx context.Context, orgID, longURL string, invitation json.RawMessage) (string, time.Time, error) {
	var b [idBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", time.Time{}, err
	}
	id := base64.RawURLEncoding.EncodeToString(b[:])
	now := s.now().UTC()
	e := Entry{LongURL: longURL, Invitation: invitation, OrgID: orgID, CreatedAt: now, ExpiresAt: now.Add(s.ttl)}
	if err := s.store.Put(ctx, id, e); err != nil {
		return "", time.Time{}, err
	}
	return id, e.ExpiresAt, nil
}

// ExpiresAt is when a short URL made now stops answering: the expiry a
// backend that keeps short URLs in its records (backend.ShortURLKeeper)
// is given, so that every short URL lives as long.
func (s *Service) ExpiresAt() time.Time { return s.now().UTC().Add(s.ttl) }

// Resolve returns the entry of a live id. An expired entry is deleted and
// reported as ErrNotFound, as RFC 0434 asks senders to invalidate expired
// short URLs.
func (s *Service) Resolve(ctx context.Context, id string) (Entry, error) {
	if len(id) != base64.RawURLEncoding.EncodedLen(idBytes) {
		return Entry{}, ErrNotFound
	}
	if _, err := base64.RawURLEncoding.Strict().DecodeString(id); err != nil {
		return Entry{}, ErrNotFound // not an id we make: no storage read
	}
	var e Entry
	err := s.store.Get(ctx, id, &e)
	if errors.Is(err, store.ErrNotFound) {
		return Entry{}, ErrNotFound
	}
	if err != nil {
		return Entry{}, err
	}
	if !s.now().Before(e.ExpiresAt) {
		_ = s.store.Delete(ctx, id)
		return Entry{}, ErrNotFound
	}
	return e, nil
}

// Delete removes a short URL (used to undo a create whose request failed
// later, so nothing partial survives).
func (s *Service) Delete(ctx context.Context, id string) error {
	return s.store.Delete(ctx, id)
}
