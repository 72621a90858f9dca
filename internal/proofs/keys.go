package proofs

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/didkey"
	"github.com/proofgate/proofgate/internal/keyseal"
	"github.com/proofgate/proofgate/internal/store"
)

// keyCreateTimeout bounds creating an org key: it may wait for another
// instance's storage lock, and must not hang a request forever.
const keyCreateTimeout = 30 * time.Second

// orgKeyDoc is stored at proofgate/keys/<verkey>.json, so an inbound
// envelope, which names only its recipient verkey, finds the private key
// with one read.
type orgKeyDoc struct {
	OrgID string `json:"orgId"`
	// Seed is the plaintext Ed25519 seed; empty when SealedSeed is set.
	Seed []byte `json:"seed,omitempty"`
	// SealedSeed is the seed encrypted under key_encryption_key (keyseal).
	SealedSeed string `json:"sealedSeed,omitempty"`
	CreatedAt  string `json:"createdAt"`
}

// orgPointer is stored at proofgate/keys/org-<sha256(orgId)>.json and names
// the org's key. The org id is hashed because it is caller data and storage
// keys take a narrow alphabet.
type orgPointer struct {
	OrgID  string `json:"orgId"`
	Verkey string `json:"verkey"`
}

// OrgKey is an org's stable verifier key.
type OrgKey struct {
	OrgID string
	Key   ed25519.PrivateKey
}

// keyring hands out each org's stable key, created on first use and kept
// in storage. Keys never change once written, so they are cached for good.
type keyring struct {
	store    *store.Store
	now      func() time.Time
	flight   singleflight.Group
	mu       sync.RWMutex
	byOrg    map[string]OrgKey
	byVerkey map[string]OrgKey
	// absent are verkeys recently found to be no key of ours.
	absent *absentKeys
	// sealer encrypts seeds at rest; nil stores them in plaintext.
	sealer *keyseal.Sealer
}

func newKeyring(s *store.Store, now func() time.Time, sealer *keyseal.Sealer) *keyring {
	return &keyring{store: s, now: now, byOrg: map[string]OrgKey{}, byVerkey: map[string]OrgKey{}, absent: newAbsentKeys(now), sealer: sealer}
}

// cached returns an org key already in memory, without storage.
func (k *keyring) cached(verkey string) (OrgKey, bool) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	ok, found := k.byVerkey[verkey]
	return ok, found
}

// cachedOrg returns an org's key already in memory, without storage.
func (k *keyring) cachedOrg(orgID string) (OrgKey, bool) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	ok, found := k.byOrg[orgID]
	return ok, found
}

func pointerName(orgID string) string {
	h := sha256.Sum256([]byte(orgID))
	return "org-" + hex.EncodeToString(h[:])
}

// remember caches the org's current key (the one its pointer names).
func (k *keyring) remember(ok OrgKey) {
	k.mu.Lock()
	k.byOrg[ok.OrgID] = ok
	verkey := didkey.Verkey(ok.Key.Public().(ed25519.PublicKey))
	k.byVerkey[verkey] = ok
	k.mu.Unlock()
	k.absent.forget(verkey)
}

// rememberVerkey caches a key found by its public key only: it may be an
// unreferenced leftover, so it must not become the org's current key.
func (k *keyring) rememberVerkey(verkey string, ok OrgKey) {
	k.mu.Lock()
	k.byVerkey[verkey] = ok
	k.mu.Unlock()
}

// forOrg returns the org's key, creating it on first use. Concurrent first
// uses create one key: callers in this process share one attempt
// (singleflight), and the attempt holds the storage lock of the org's
// pointer while it checks and writes, so instances sharing the storage
// agree too.
func (k *keyring) forOrg(ctx context.Context, orgID string) (OrgKey, error) {
	if ok, found := k.cachedOrg(orgID); found {
		return ok, nil
	}
	ch := k.flight.DoChan(orgID, func() (any, error) {
		// Not the first caller's cancellation: other callers wait on it.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keyCreateTimeout)
		defer cancel()
		return k.loadOrCreate(ctx, orgID)
	})
	select {
	case <-ctx.Done():
		return OrgKey{}, ctx.Err()
	case r := <-ch:
		if r.Err != nil {
			return OrgKey{}, r.Err
		}
		return r.Val.(OrgKey), nil
	}
}

// existing returns the org's key if it has one, without creating it:
// backend.ErrNotFound otherwise.
func (k *keyring) existing(ctx context.Context, orgID string) (OrgKey, error) {
	if ok, found := k.cachedOrg(orgID); found {
		return ok, nil
	}
	ok, err := k.load(ctx, orgID, pointerName(orgID))
	if errors.Is(err, store.ErrNotFound) {
		return OrgKey{}, backend.ErrNotFound
	}
	return ok, err
}

func (k *keyring) loadOrCreate(ctx context.Context, orgID string) (OrgKey, error) {
	name := pointerName(orgID)
	ok, err := k.load(ctx, orgID, name)
	if err == nil || !errors.Is(err, store.ErrNotFound) {
		return ok, err
	}
	storage := k.store.Storage()
	lockName := k.store.Key(name)
	if err := storage.Lock(ctx, lockName); err != nil {
		return OrgKey{}, fmt.Errorf("%w: locking org key: %w", backend.ErrUnavailable, err)
	}
	defer storage.Unlock(context.WithoutCancel(ctx), lockName) //nolint:errcheck // a lost unlock expires
	ok, err = k.load(ctx, orgID, name)
	if err == nil || !errors.Is(err, store.ErrNotFound) {
		return ok, err
	}

	pub, priv, err := didkey.Generate()
	if err != nil {
		return OrgKey{}, err
	}
	verkey := didkey.Verkey(pub)
	// Key first, pointer second: a crash in between leaves an unreferenced
	// key, never a pointer to nothing.
	doc := orgKeyDoc{OrgID: orgID, CreatedAt: k.now().UTC().Format(backend.TimeFormat)}
	if doc.Seed, doc.SealedSeed, err = sealSeed(k.sealer, priv.Seed(), verkey); err != nil {
		return OrgKey{}, err
	}
	if err := k.store.Put(ctx, verkey, doc); err != nil {
		return OrgKey{}, err
	}
	if err := k.store.Put(ctx, name, orgPointer{OrgID: orgID, Verkey: verkey}); err != nil {
		return OrgKey{}, err
	}
	ok = OrgKey{OrgID: orgID, Key: priv}
	k.remember(ok)
	return ok, nil
}

// load reads the org's pointer and key; store.ErrNotFound when the org has
// no key yet.
func (k *keyring) load(ctx context.Context, orgID, name string) (OrgKey, error) {
	var p orgPointer
	if err := k.store.Get(ctx, name, &p); err != nil {
		return OrgKey{}, err
	}
	if p.OrgID != orgID {
		return OrgKey{}, fmt.Errorf("proofs: key pointer %s names org %q, not %q", name, p.OrgID, orgID)
	}
	ok, err := k.forVerkey(ctx, p.Verkey)
	if err != nil {
		return OrgKey{}, fmt.Errorf("proofs: org key %s: %w", p.Verkey, err)
	}
	if ok.OrgID != orgID {
		return OrgKey{}, fmt.Errorf("proofs: key %s belongs to org %q, not %q", p.Verkey, ok.OrgID, orgID)
	}
	k.remember(ok)
	return ok, nil
}

// forVerkey returns the org key whose public key is verkey, or
// backend.ErrNotFound.
func (k *keyring) forVerkey(ctx context.Context, verkey string) (OrgKey, error) {
	k.mu.RLock()
	ok, found := k.byVerkey[verkey]
	k.mu.RUnlock()
	if found {
		return ok, nil
	}
	pub, err := didkey.ParseVerkey(verkey)
	if err != nil {
		return OrgKey{}, backend.ErrNotFound
	}
	var doc orgKeyDoc
	if err := k.store.Get(ctx, verkey, &doc); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return OrgKey{}, backend.ErrNotFound
		}
		return OrgKey{}, err
	}
	seed, err := openSeed(k.sealer, doc.Seed, doc.SealedSeed, verkey)
	if err != nil {
		return OrgKey{}, fmt.Errorf("proofs: key %s: %w", verkey, err)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	if !pub.Equal(priv.Public()) {
		return OrgKey{}, fmt.Errorf("proofs: key %s: seed does not match", verkey)
	}
	ok = OrgKey{OrgID: doc.OrgID, Key: priv}
	k.rememberVerkey(verkey, ok)
	k.reseal(ctx, verkey, doc, seed)
	return ok, nil
}

// reseal rewrites a key document stored in plaintext, or sealed with a
// previous key encryption key, under the current one: migration and
// rotation complete as keys are used. Best effort: the key works either
// way, and the next read tries again.
func (k *keyring) reseal(ctx context.Context, verkey string, doc orgKeyDoc, seed []byte) {
	if k.sealer == nil || (doc.SealedSeed != "" && !k.sealer.Stale(doc.SealedSeed)) {
		return
	}
	sealed, err := k.sealer.Seal(seed, verkey)
	if err != nil {
		return
	}
	doc.Seed, doc.SealedSeed = nil, sealed
	_ = k.store.Put(context.WithoutCancel(ctx), verkey, doc)
}

// sealSeed returns what to store for a seed: itself without a sealer, else
// its sealed form bound to the verkey.
func sealSeed(sealer *keyseal.Sealer, seed []byte, verkey string) ([]byte, string, error) {
	if sealer == nil {
		return seed, "", nil
	}
	sealed, err := sealer.Seal(seed, verkey)
	if err != nil {
		return nil, "", err
	}
	return nil, sealed, nil
}

// openSeed returns the plaintext seed of a stored key: the sealed form
// when there is one (which needs the key encryption key), else the
// plaintext one (stored before encryption was turned on).
func openSeed(sealer *keyseal.Sealer, seed []byte, sealed, verkey string) ([]byte, error) {
	if sealed != "" {
		if sealer == nil {
			return nil, fmt.Errorf("%w: the key is encrypted at rest and no key_encryption_key is configured", keyseal.ErrUnknownKey)
		}
		plain, err := sealer.Open(sealed, verkey)
		if err != nil {
			return nil, err
		}
		seed = plain
	}
	if len(seed) != ed25519.SeedSize {
		return nil, errors.New("bad seed")
	}
	return seed, nil
}

// sealedDoc is doc as stored: with its record key sealed when a sealer is
// configured. doc itself keeps the plaintext.
func (s *Service) sealedDoc(doc *Doc) *Doc {
	if s.cfg.Sealer == nil || len(doc.Key.Seed) == 0 {
		return doc
	}
	seed, sealed, err := sealSeed(s.cfg.Sealer, doc.Key.Seed, doc.Key.Verkey)
	if err != nil {
		return doc // crypto/rand failed; keep it readable rather than lose it
	}
	stored := *doc
	stored.Key.Seed, stored.Key.SealedSeed = seed, sealed
	return &stored
}

// openDoc turns a stored record key back into plaintext.
func (s *Service) openDoc(doc *Doc) error {
	if doc.Key.SealedSeed == "" {
		return nil
	}
	seed, err := openSeed(s.cfg.Sealer, nil, doc.Key.SealedSeed, doc.Key.Verkey)
	if err != nil {
		return fmt.Errorf("proofs: record %s: %w", doc.Record.ID, err)
	}
	doc.Key.Seed, doc.Key.SealedSeed = seed, ""
	return nil
}
