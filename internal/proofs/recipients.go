package proofs

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/didkey"
)

// MaxRecipientLookups bounds the recipients of one inbound envelope that
// may cost storage reads (each up to two: the org key, then the record
// key). An envelope may name didcomm.MaxRecipients keys, and anyone may
// post one: without this bound, 32 made-up keys cost 64 reads per
// anonymous request, billed round trips on remote storage. A real sender
// encrypts to the one key our invitation gave, perhaps beside a few of its
// own; keys known to be ours or known not to be cost nothing.
const MaxRecipientLookups = 4

// Negative cache of verkeys that are neither an org key nor a record key:
// bounded in size (oldest evicted first) and short-lived, so that storage
// that answers "not found" for a moment (an eventually consistent remote
// store) cannot keep a real key refused for long. Verkeys of new keys are
// random, so nobody can have asked for one before it existed.
const (
	maxAbsentKeys = 4096
	absentTTL     = time.Minute
)

// absentKeys remembers verkeys that are not ours.
type absentKeys struct {
	mu sync.Mutex
	at map[string]time.Time
	// order is every add in turn, for eviction. A verkey dropped from at
	// (expired in has, or forgotten) and added again has two slots: the
	// older one evicts nothing, since its time is not the entry's (it
	// used to evict the fresh entry), and slots are trimmed past
	// maxAbsentKeys live entries, so the map keeps as many as it may.
	order []absentSlot
	now   func() time.Time
}

// absentSlot is one add: the verkey and the time it was added at.
type absentSlot struct {
	verkey string
	at     time.Time
}

func newAbsentKeys(now func() time.Time) *absentKeys {
	return &absentKeys{at: map[string]time.Time{}, now: now}
}

func (a *absentKeys) has(verkey string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.at[verkey]
	if ok && a.now().Sub(t) > absentTTL {
		delete(a.at, verkey)
		return false
	}
	return ok
}

func (a *absentKeys) add(verkey string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.now()
	a.at[verkey] = t
	a.order = append(a.order, absentSlot{verkey, t})
	for len(a.at) > maxAbsentKeys || len(a.order) > 2*maxAbsentKeys {
		oldest := a.order[0]
		a.order = a.order[1:]
		if held, ok := a.at[oldest.verkey]; ok && held.Equal(oldest.at) {
			delete(a.at, oldest.verkey)
		}
	}
	if cap(a.order) > 4*maxAbsentKeys {
		a.order = append([]absentSlot(nil), a.order...) // let the old array go
	}
}

// forget drops a verkey that became ours (a key this instance created).
func (a *absentKeys) forget(verkey string) {
	a.mu.Lock()
	delete(a.at, verkey)
	a.mu.Unlock()
}

// RecipientFinder returns the key lookup for one inbound envelope: it
// answers from memory where it can (org keys already seen, verkeys known
// not to be ours) and lets at most MaxRecipientLookups of the envelope's
// recipients reach storage; past that, a recipient counts as not ours.
func (s *Service) RecipientFinder() func(ctx context.Context, verkey string) (Recipient, error) {
	budget := MaxRecipientLookups
	return func(ctx context.Context, verkey string) (Recipient, error) {
		if ok, found := s.keys.cached(verkey); found {
			return Recipient{Key: ok.Key, OrgID: ok.OrgID}, nil
		}
		if s.keys.absent.has(verkey) {
			return Recipient{}, backend.ErrNotFound
		}
		if budget == 0 {
			return Recipient{}, backend.ErrNotFound
		}
		budget--
		r, err := s.RecipientKey(ctx, verkey)
		if errors.Is(err, backend.ErrNotFound) {
			s.keys.absent.add(verkey)
		}
		return r, err
	}
}

// Recipient is a verifier private key found by its public key.
type Recipient struct {
	Key   ed25519.PrivateKey
	OrgID string
	// RecordID is set for a record's own key (reuseConnection false); for
	// an org key the record comes from the message's thread.
	RecordID string
}

// RecipientKey finds the private key an inbound envelope was encrypted to,
// from the base58 verkey its header names: an org key, or the key of the
// one record it was made for. backend.ErrNotFound when it is neither.
func (s *Service) RecipientKey(ctx context.Context, verkey string) (Recipient, error) {
	ok, err := s.keys.forVerkey(ctx, verkey)
	if err == nil {
		return Recipient{Key: ok.Key, OrgID: ok.OrgID}, nil
	}
	if !errors.Is(err, backend.ErrNotFound) {
		return Recipient{}, err
	}
	pub, err := didkey.ParseVerkey(verkey)
	if err != nil {
		return Recipient{}, backend.ErrNotFound
	}
	doc, err := s.load(ctx, RecordIDForKey(pub))
	if err != nil {
		return Recipient{}, err
	}
	if doc.Key.Kind != KeyRecord || doc.Key.Verkey != verkey || len(doc.Key.Seed) != ed25519.SeedSize {
		return Recipient{}, backend.ErrNotFound
	}
	priv := ed25519.NewKeyFromSeed(doc.Key.Seed)
	if !pub.Equal(priv.Public()) {
		return Recipient{}, fmt.Errorf("proofs: record %s: key seed does not match", doc.Record.ID)
	}
	return Recipient{Key: priv, OrgID: doc.Record.OrgID, RecordID: doc.Record.ID}, nil
}

// OrgKey returns the org's stable verifier key, creating it on first use.
func (s *Service) OrgKey(ctx context.Context, orgID string) (ed25519.PrivateKey, error) {
	ok, err := s.keys.forOrg(ctx, orgID)
	if err != nil {
		return nil, err
	}
	return ok.Key, nil
}
