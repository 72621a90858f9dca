package acapy

import (
	"context"
	"net/http"
	"net/url"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// DiscardRecord implements backend.Discarder: it deletes the presentation
// exchange record at the agent (so its invitation can never be answered)
// and forgets its owner.
func (b *Backend) DiscardRecord(ctx context.Context, org backend.Org, proofRecordID string) error {
	b.discard(org, proofRecordID)
	return b.owners.Forget(ctx, proofRecordID)
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
	ctx, cancel := context.WithTimeout(context.Background(), b.TimeoutOrDefault())
	defer cancel()
	call := agent.Request{Method: http.MethodDelete, Path: path, Idempotent: true}
	resp, err := b.do(ctx, org, call)
	if err == nil && resp.Status/100 != 2 && resp.Status != http.StatusNotFound {
		err = b.client.StatusError(call, resp, recordScoped)
	}
	return err
}
