package proofs

import (
	"context"
	"errors"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/sweeper"
)

// ErrorInvitationExpired is the errorMessage of a record whose invitation
// expired (invitation_ttl) before a presentation answered it.
const ErrorInvitationExpired = "the invitation expired before a presentation answered it"

// invitationExpired reports whether doc's invitation is past
// InvitationTTL while it still waits for a presentation.
func (s *Service) invitationExpired(doc *Doc, now time.Time) bool {
	if s.cfg.InvitationTTL <= 0 || doc.Record.State != backend.StateRequestSent {
		return false
	}
	created, err := time.Parse(backend.TimeFormat, doc.Record.CreatedAt)
	return err == nil && !now.Before(created.Add(s.cfg.InvitationTTL))
}

// sweepLockWait is how long the sweeper waits for a record's locks: a
// record busy longer (a verification, an accept) is expired by a later
// pass, and one whose lock is never released does not hold up the pass.
const sweepLockWait = 10 * time.Second

// expire abandons a record whose invitation expired (a transition, so it
// is notified like any other).
func (s *Service) expire(ctx context.Context, recordID string) (*Doc, error) {
	return s.updateWithin(ctx, recordID, sweepLockWait, func(d *Doc) error {
		if !s.invitationExpired(d, s.cfg.Now()) {
			return &backend.ConflictError{State: d.Record.State}
		}
		return toAbandoned(d, ErrorInvitationExpired)
	}, nil)
}

// refuseExpired answers a presentation that arrives after its invitation
// expired: the record is abandoned and the prover gets a problem report.
// ok is false when the invitation is still valid. It waits for the
// record's lock as a presentation does, at most AdmitWait.
func (a *Agent) refuseExpired(ctx context.Context, doc *Doc, theirs *ServiceDecorator, sender string) (state string, ok bool, err error) {
	if !a.svc.invitationExpired(doc, a.svc.cfg.Now()) {
		return "", false, nil
	}
	updated, err := a.svc.updateWithin(ctx, doc.Record.ID, AdmitWait, func(d *Doc) error {
		if d.Record.State != backend.StateRequestSent {
			return &backend.ConflictError{State: d.Record.State}
		}
		if err := toAbandoned(d, ErrorInvitationExpired); err != nil {
			return err
		}
		d.TheirService = theirs
		return a.svc.attachConnection(ctx, d, theirs, sender)
	}, nil)
	if err != nil {
		return "", true, err
	}
	a.reportProblem(ctx, updated, ErrorInvitationExpired)
	return updated.Record.State, true, nil
}

// SweepTask deletes done and abandoned records older than RecordRetention
// (their per-record keys live in them and go too) and abandons records
// whose invitation expired unanswered (InvitationTTL); a bounded number of
// records per pass.
func (s *Service) SweepTask() sweeper.Task {
	var cursor sweeper.Cursor
	return sweeper.Task{Name: "records", Run: func(ctx context.Context, now time.Time, budget int) (map[string]int, error) {
		counts := map[string]int{"records": 0, "invitations_expired": 0}
		if s.cfg.RecordRetention <= 0 && s.cfg.InvitationTTL <= 0 {
			return counts, nil
		}
		names, err := cursor.Next(ctx, s.records, budget)
		if err != nil {
			return counts, err
		}
		for _, name := range names {
			u, ok := ParseID(name)
			if !ok {
				continue
			}
			doc, err := s.loadSealed(ctx, u)
			if err != nil {
				if errors.Is(err, backend.ErrUnavailable) {
					return counts, err
				}
				continue
			}
			if !s.madeHere(doc) && s.madeElsewhere(doc) {
				continue // another site's, by its own invitation_ttl and record_retention
			}
			switch {
			case s.invitationExpired(doc, now):
				if _, err := s.expire(ctx, name); err == nil {
					counts["invitations_expired"]++
				}
			case s.retentionOver(doc, now):
				deleted, err := s.deleteFinished(ctx, u.String(), now)
				if err != nil {
					return counts, err
				}
				if deleted {
					counts["records"]++
				}
			}
		}
		return counts, nil
	}}
}

// ackHoldMax is how much longer than record_retention a done record whose
// ack is still queued is kept: longer than an ack's retries take (12
// attempts, backing off to an hour: about five hours).
const ackHoldMax = 24 * time.Hour

func (s *Service) retentionOver(doc *Doc, now time.Time) bool {
	if s.cfg.RecordRetention <= 0 || !Terminal(doc.Record.State) {
		return false
	}
	updated, err := time.Parse(backend.TimeFormat, doc.Record.UpdatedAt)
	if err != nil {
		return false
	}
	keep := s.cfg.RecordRetention
	if ack, _ := doc.Record.Metadata[MetadataAck].(map[string]any); ack != nil {
		if st, _ := ack["state"].(string); st == "queued" || st == "sending" {
			// Its ack is still being retried and is read from the record
			// at delivery: the record stays while it may (ackResult
			// renews it when the ack ends), but not for ever, should the
			// ack's message be gone.
			keep += ackHoldMax
		}
	}
	return !now.Before(updated.Add(keep))
}

// deleteFinished deletes a record under its locks (with cluster, its
// storage lock too: another instance may have loaded it to write it back),
// checking again that it is finished and past its retention (an outcome
// noted since may have renewed it), and reports whether it did. A record
// whose locks are held longer than sweepLockWait is left to a later pass.
func (s *Service) deleteFinished(ctx context.Context, id string, now time.Time) (bool, error) {
	unlock, err := s.lockRecord(ctx, id, sweepLockWait)
	if errors.Is(err, ErrBusy) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer unlock()
	u, _ := ParseID(id)
	doc, err := s.loadSealed(ctx, u)
	if errors.Is(err, backend.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !s.retentionOver(doc, now) {
		return false, nil
	}
	if err := s.records.Delete(ctx, id); err != nil {
		return false, err
	}
	return true, nil
}
