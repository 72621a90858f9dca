package local

import (
	"context"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/proofs"
)

// InvitationState returns the state of the record whose invitation has
// the id invitationID (every id is derived from the record id), or
// backend.ErrNotFound: the invitation page says when a link was already
// answered, closed, or is not this verifier's.
func (l *Local) InvitationState(ctx context.Context, invitationID string) (string, error) {
	id, ok := proofs.ParseID(invitationID)
	if !ok {
		return "", backend.ErrNotFound
	}
	rec, err := l.svc.LoadRecord(ctx, proofs.RecordIDForInvitation(id).String())
	if err != nil {
		return "", err
	}
	return rec.State, nil
}
