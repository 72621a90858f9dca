package local

import (
	"context"
	"encoding/json"
)

// InvitationState returns the state of the record whose invitation has
// the id invitationID (every id is derived from the record id), as the
// invitation's page shows it (abandoned once the invitation expired,
// before the sweeper closes the record), and the invitation JSON the
// record holds; or backend.ErrNotFound: the invitation page says when a
// link was already answered, closed, or is not this verifier's, and shows
// only the invitation the record holds.
func (l *Local) InvitationState(ctx context.Context, invitationID string) (string, json.RawMessage, error) {
	return l.svc.InvitationState(ctx, invitationID)
}
