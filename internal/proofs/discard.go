package proofs

import (
	"context"

	"github.com/proofgate/proofgate/internal/backend"
)

// Discard deletes a record of org that is still in request-sent: the undo
// of a Create whose request failed afterwards (its short URL could not be
// stored, say), so that no invitation nobody received stays behind. A record
// that has moved on is never deleted (*backend.ConflictError).
func (s *Service) Discard(ctx context.Context, org backend.Org, recordID string) error {
	u, ok := ParseID(recordID)
	if !ok {
		return backend.ErrNotFound
	}
	id := u.String()
	unlock, err := s.lockRecord(ctx, id, 0)
	if err != nil {
		return err
	}
	defer unlock()
	doc, err := s.load(ctx, u)
	if err != nil {
		return err
	}
	if doc.Record.OrgID != org.ID {
		return backend.ErrNotFound
	}
	if doc.Record.State != backend.StateRequestSent {
		return &backend.ConflictError{State: doc.Record.State}
	}
	return s.records.Delete(ctx, id)
}
