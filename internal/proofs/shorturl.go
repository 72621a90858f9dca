package proofs

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/jsonpick"
	"github.com/proofgate/proofgate/internal/store"
)

// shortURLKeyOwner names, in the keyring, the secret that keys short-URL
// ids (ShortURLID): created with the first short URL, kept with the org
// keys (sealed under key_encryption_key when one is set) and shared by
// the instances of a storage. The name holds spaces, which no org id may
// (validate.OrgID), and its public key is never published.
const shortURLKeyOwner = "proofgate short-url ids"

// shortURLCipherInfo separates the cipher's key from any other use of the
// secret (HKDF's info).
const shortURLCipherInfo = "proofgate short-url id cipher v1"

// shortURLCipher returns the block cipher of short-URL ids. create makes
// its secret when there is none yet (a create asking for a short URL);
// without it, no secret means no short URL can exist: backend.ErrNotFound.
func (s *Service) shortURLCipher(ctx context.Context, create bool) (cipher.Block, error) {
	if c := s.shortCipher.Load(); c != nil {
		return *c, nil
	}
	var (
		ok  OrgKey
		err error
	)
	if create {
		ok, err = s.keys.forOrg(ctx, shortURLKeyOwner)
	} else {
		ok, err = s.keys.existing(ctx, shortURLKeyOwner)
	}
	if err != nil {
		return nil, err
	}
	key, err := hkdf.Key(sha256.New, ok.Key.Seed(), nil, shortURLCipherInfo, 16)
	if err != nil {
		return nil, fmt.Errorf("proofs: short-URL cipher key: %w", err)
	}
	c, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("proofs: short-URL cipher: %w", err)
	}
	s.shortCipher.Store(&c)
	return c, nil
}

// ResolveShortURL returns the invitation, long URL and record state behind
// a short-URL id Create made (ShortURLID): backend.ErrNotFound for an id of another
// length or alphabet (without reading storage), one that does not decrypt to a
// record id, an unknown record, a record made without a short URL, and a
// short URL past its expiry. The state is the one the invitation's page
// shows (pageState): abandoned once the invitation expired.
func (s *Service) ResolveShortURL(ctx context.Context, id string) (backend.ShortURL, error) {
	if _, ok := decodeShortURLID(id); !ok {
		return backend.ShortURL{}, backend.ErrNotFound
	}
	c, err := s.shortURLCipher(ctx, false)
	if err != nil {
		return backend.ShortURL{}, err
	}
	recordID, ok := RecordIDForShortURL(c, id)
	if !ok {
		return backend.ShortURL{}, backend.ErrNotFound
	}
	doc, err := s.shortURLView(ctx, recordID)
	if err != nil {
		return backend.ShortURL{}, err
	}
	if doc.ShortURLExpiresAt == "" {
		return backend.ShortURL{}, backend.ErrNotFound
	}
	expires, err := time.Parse(backend.TimeFormat, doc.ShortURLExpiresAt)
	if err != nil {
		return backend.ShortURL{}, fmt.Errorf("proofs: record %s: shortUrlExpiresAt: %w", recordID, err)
	}
	if !s.cfg.Now().Before(expires) {
		return backend.ShortURL{}, backend.ErrNotFound
	}
	return backend.ShortURL{Invitation: doc.Invitation, LongURL: doc.InvitationURL, State: s.pageState(&doc)}, nil
}

// InvitationState returns what the page of an invitation this verifier
// made, found by its @id, shows: the state of its record (pageState) and
// the invitation JSON the record holds, to which the page compares the
// one it was given; backend.ErrNotFound for an id no record of which
// could have made, or whose record is gone. It reads of the record only
// what a short URL reads (shortURLView).
func (s *Service) InvitationState(ctx context.Context, invitationID string) (string, json.RawMessage, error) {
	inv, ok := ParseID(invitationID)
	if !ok {
		return "", nil, backend.ErrNotFound
	}
	recordID := RecordIDForInvitation(inv)
	if _, ok := ParseID(recordID.String()); !ok {
		return "", nil, backend.ErrNotFound
	}
	doc, err := s.shortURLView(ctx, recordID)
	if err != nil {
		return "", nil, err
	}
	return s.pageState(&doc), doc.Invitation, nil
}

// pageState is the state an invitation's page shows of its record: the
// record's state, but abandoned once the invitation expired
// (InvitationTTL), as a presentation would find it (refuseExpired),
// though the sweeper has not closed the record yet.
func (s *Service) pageState(f *shortURLFields) string {
	d := Doc{Record: backend.ProofRecord{State: f.Record.State, CreatedAt: f.Record.CreatedAt}}
	if s.invitationExpired(&d, s.cfg.Now()) {
		return backend.StateAbandoned
	}
	return f.Record.State
}

// shortURLFields are what resolving a short URL, or an invitation's page
// (InvitationState), reads of a record.
type shortURLFields struct {
	Record struct {
		ID        string `json:"id"`
		State     string `json:"state"`
		CreatedAt string `json:"createdAt"`
	} `json:"record"`
	Invitation        json.RawMessage `json:"invitation"`
	InvitationURL     string          `json:"invitationUrl"`
	ShortURLExpiresAt string          `json:"shortUrlExpiresAt"`
}

var (
	shortURLNames = []string{"record", "invitation", "invitationUrl", "shortUrlExpiresAt"}
	recordNames   = []string{"id", "state", "createdAt"}
)

// pickStrings decodes the picked values that are present into dsts, as
// encoding/json decodes them into strings; false when one is not a
// string.
func pickStrings(vals [][]byte, dsts ...*string) bool {
	for i, dst := range dsts {
		if vals[i] == nil {
			continue
		}
		var ok bool
		if *dst, ok = jsonpick.String(vals[i]); !ok {
			return false
		}
	}
	return true
}

// shortURLView reads of a record only what its short URL answers with:
// one checking pass over the document (internal/jsonpick), with no key
// to unseal and nothing else decoded; a document the pass cannot answer
// for exactly is decoded by encoding/json.
func (s *Service) shortURLView(ctx context.Context, recordID uuid.UUID) (shortURLFields, error) {
	var f shortURLFields
	b, err := s.records.Load(ctx, recordID.String())
	if errors.Is(err, store.ErrNotFound) {
		return f, backend.ErrNotFound
	}
	if err != nil {
		return f, err
	}
	var vals [4][]byte
	picked, ok := jsonpick.Pick(b, shortURLNames, vals[:], &f)
	if picked {
		f.Invitation = vals[1]
		if vals[0] != nil {
			var rec [3][]byte
			if picked, ok = jsonpick.Pick(vals[0], recordNames, rec[:], &f.Record); picked {
				ok = pickStrings(rec[:], &f.Record.ID, &f.Record.State, &f.Record.CreatedAt)
			}
		}
		ok = ok && pickStrings(vals[2:], &f.InvitationURL, &f.ShortURLExpiresAt)
	}
	if !ok {
		return shortURLFields{}, fmt.Errorf("proofs: record %s: not a record document", recordID)
	}
	if f.Record.ID != recordID.String() {
		return shortURLFields{}, fmt.Errorf("proofs: record %s holds record %q", recordID, f.Record.ID)
	}
	return f, nil
}
