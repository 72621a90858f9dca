package acapy

import (
	"context"
	"net/http"
	"net/url"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// DiscardRecord implements backend.Discarder: it deletes the invitation's
// out-of-band record, then the presentation exchange record (so the
// invitation can never be answered), at the agent, and forgets the
// record's owner. The invitation goes first, as in SendOutOfBandRequest
// when the owner cannot be stored: a holder who has it cannot answer a
// request deleted before it anyway, but the out-of-band record would stay.
// The agent's failures are logged, not returned: a request that could
// not be deleted is recorded as an orphan and deleted by the sweeps, and
// an invitation whose request is gone cannot be answered.
func (b *Backend) DiscardRecord(ctx context.Context, org backend.Org, created backend.OOBResult) error {
	if created.OutOfBandID != "" {
		b.discardInvitation(org, created.OutOfBandID)
	}
	b.discard(org, created.ProofRecord.ID)
	return b.owners.Forget(ctx, created.ProofRecord.ID)
}

var _ backend.Discarder = (*Backend)(nil)

// discardInvitation deletes the out-of-band record of an invitation
// nobody received (DELETE /out-of-band/invitations/{invi_msg_id}: ACA-Py
// deletes the records associated with it), on a context of its own. A
// failure is logged: the record is an unanswerable invitation, not a
// request a holder could answer.
func (b *Backend) discardInvitation(org backend.Org, invitationID string) {
	if err := b.deleteAgain(org, "/out-of-band/invitations/"+url.PathEscape(invitationID), false); err != nil {
		b.client.Logger().Warn("could not delete an invitation nobody received",
			zap.String("invi_msg_id", invitationID), zap.String("org", org.ID), zap.Error(err))
	}
}

// deleteAgain deletes what a failed create made at path, on a context of
// its own (the caller's may be what ran out); a 404 is success: it is
// gone. recordScoped is agent.Client.StatusError's.
func (b *Backend) deleteAgain(org backend.Org, path string, recordScoped bool) error {
	ctx, cancel := b.Detached()
	defer cancel()
	call := agent.Request{Method: http.MethodDelete, Path: path, Idempotent: true}
	resp, err := b.do(ctx, org, call)
	if err == nil && resp.Status/100 != 2 && resp.Status != http.StatusNotFound {
		err = b.client.StatusError(call, resp, recordScoped)
	}
	return err
}
