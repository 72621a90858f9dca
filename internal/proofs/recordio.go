package proofs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/store"
)

// Load returns the stored document of a record: backend.ErrNotFound for an
// unknown or malformed id.
func (s *Service) Load(ctx context.Context, recordID string) (*Doc, error) {
	u, ok := ParseID(recordID)
	if !ok {
		return nil, backend.ErrNotFound
	}
	return s.load(ctx, u)
}

func (s *Service) load(ctx context.Context, id uuid.UUID) (*Doc, error) {
	doc, err := s.loadSealed(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.openDoc(doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// loadSealed is load without unsealing the record key (the sweeper needs
// only the state and the times).
func (s *Service) loadSealed(ctx context.Context, id uuid.UUID) (*Doc, error) {
	b, err := s.records.Load(ctx, id.String())
	if errors.Is(err, store.ErrNotFound) {
		return nil, backend.ErrNotFound
	}
	if err != nil {
		return nil, err // the store marks I/O failures backend.ErrUnavailable
	}
	var doc Doc
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("proofs: decoding record %s: %w", id, err)
	}
	if doc.Record.ID != id.String() {
		return nil, fmt.Errorf("proofs: record %s holds record %q", id, doc.Record.ID)
	}
	return &doc, nil
}

// LoadRecord returns the ProofRecord of a record.
func (s *Service) LoadRecord(ctx context.Context, recordID string) (backend.ProofRecord, error) {
	doc, err := s.Load(ctx, recordID)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	return doc.Record, nil
}

// RecordOrg returns the org owning a record, or backend.ErrNotFound.
func (s *Service) RecordOrg(ctx context.Context, recordID string) (string, error) {
	doc, err := s.Load(ctx, recordID)
	if err != nil {
		return "", err
	}
	return doc.Record.OrgID, nil
}

// Invitation returns a record's invitation JSON and long URL.
func (s *Service) Invitation(ctx context.Context, recordID string) (json.RawMessage, string, error) {
	doc, err := s.Load(ctx, recordID)
	if err != nil {
		return nil, "", err
	}
	return doc.Invitation, doc.InvitationURL, nil
}

// update runs fn on the record under its lock and writes the result once.
// When fn fails or the write fails the stored record is unchanged. A
// change of state is a transition: its notifications are staged before
// the write and released after it (transition.go).
func (s *Service) update(ctx context.Context, recordID string, fn func(*Doc) error) (*Doc, error) {
	return s.updateStaged(ctx, recordID, fn, nil)
}

// updateStaged is update with more to stage on a transition (the ack of
// an accept): extra runs after fn, and what it stages is released or
// withdrawn with the transition's own notifications.
func (s *Service) updateStaged(ctx context.Context, recordID string, fn func(*Doc) error, extra func(context.Context, *Doc) (backend.Staged, error)) (*Doc, error) {
	return s.updateWithin(ctx, recordID, 0, fn, extra)
}

// updateWithin is updateStaged waiting at most lockWait (> 0) for the
// record's locks, else ErrBusy; 0 waits as long as ctx lives (lockRecord).
func (s *Service) updateWithin(ctx context.Context, recordID string, lockWait time.Duration, fn func(*Doc) error, extra func(context.Context, *Doc) (backend.Staged, error)) (*Doc, error) {
	u, ok := ParseID(recordID)
	if !ok {
		return nil, backend.ErrNotFound
	}
	id := u.String()
	unlock, err := s.lockRecord(ctx, id, lockWait)
	if err != nil {
		return nil, err
	}
	defer unlock()
	doc, err := s.load(ctx, u)
	if err != nil {
		return nil, err
	}
	prev := doc.Record.State
	if err := fn(doc); err != nil {
		return nil, err
	}
	doc.Record.UpdatedAt = s.cfg.Now().UTC().Format(backend.TimeFormat)
	staged, err := s.stageTransition(ctx, prev, doc, extra)
	if err != nil {
		return nil, err
	}
	if err := s.records.Put(ctx, id, s.sealedDoc(doc)); err != nil {
		switch s.landed(ctx, u, doc) {
		case writeLanded:
			// The write reached the storage and only its answer failed
			// (some storage modules time out on the reply): the record
			// is in its new state, so the transition happened, and its
			// notifications (the ack of an accept) go out with it.
			staged.Commit()
			return doc, nil
		case writeLost:
			staged.Abort(ctx)
		default:
			// Neither released nor withdrawn: held messages go out when
			// their hold ends, and each is dropped then unless its record
			// is in the state it is about (the ack deliverer's check for
			// done, the webhook deliverer's state check).
		}
		return nil, err
	}
	staged.Commit()
	return doc, nil
}

// What the storage holds after a write that reported a failure.
const (
	writeUnknown = iota // the storage cannot tell (the read failed too)
	writeLanded         // the record as written
	writeLost           // the record as it was
)

// landed tells whether doc, whose write reported a failure, is what the
// storage holds of record u now: the write is ours when its state and
// updatedAt are (the record's lock is held: no other writer could have
// written it since).
func (s *Service) landed(ctx context.Context, u uuid.UUID, doc *Doc) int {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	stored, err := s.load(rctx, u)
	switch {
	case err != nil:
		return writeUnknown
	case stored.Record.State == doc.Record.State && stored.Record.UpdatedAt == doc.Record.UpdatedAt:
		return writeLanded
	}
	return writeLost
}

// lockRecord takes the locks every write of record id is made under: the
// in-process one and, with ClusterLocks, its storage lock, which other
// instances on the storage take too. lockWait > 0 bounds each wait
// (ErrBusy after it, or once ctx ends); 0 waits as long as ctx lives: a
// wait ctx ends is backend.ErrUnavailable (a 503, the record is busy), or
// the cancellation when the caller went away (nobody is left to retry, and
// it is not the verifier's failure). unlock releases both.
func (s *Service) lockRecord(ctx context.Context, id string, lockWait time.Duration) (unlock func(), err error) {
	var release func()
	if lockWait > 0 {
		var ok bool
		if release, ok = recordLocks.lockWithin(ctx, id, lockWait); !ok {
			return nil, ErrBusy
		}
	} else if release, err = recordLocks.lockCtx(ctx, id); err != nil {
		return nil, lockWaitFailed(ctx, id, err)
	}
	if !s.cfg.ClusterLocks {
		return release, nil
	}
	name := store.Prefix + "/locks/records/" + id
	lockCtx, cancel := ctx, context.CancelFunc(func() {})
	if lockWait > 0 {
		lockCtx, cancel = context.WithTimeout(ctx, lockWait)
	}
	err = s.storage.Lock(lockCtx, name)
	// Busy only when Lock failed: it may obtain the lock just as the
	// wait runs out (certmagic's FileStorage polls every second, as
	// long as AdmitWait), and a lock obtained must be released.
	// certmagic keeps a held lock file fresh for as long as the
	// process runs, so one left behind would block the record (and the
	// sweeper behind it) for good.
	busy := err != nil && lockWait > 0 && lockCtx.Err() != nil && ctx.Err() == nil
	cancel()
	if err != nil {
		release()
		if busy {
			return nil, ErrBusy
		}
		return nil, lockWaitFailed(ctx, id, err)
	}
	return func() {
		_ = s.storage.Unlock(context.WithoutCancel(ctx), name) // nothing more can be done if it fails
		release()
	}, nil
}

// lockWaitFailed is lockRecord's error for a wait that failed: the
// cancellation when the caller went away, else backend.ErrUnavailable.
func lockWaitFailed(ctx context.Context, id string, err error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("proofs: waiting for the lock of record %s: %w", id, ctx.Err())
	}
	return unavailable(fmt.Errorf("waiting for the lock of record %s: %w", id, err))
}
