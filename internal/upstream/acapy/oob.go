package acapy

import (
	"context"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// SendOutOfBandRequest creates the presentation request, then an
// out-of-band invitation carrying it, while the request's owner is made
// durable. If the invitation cannot be made, the request is deleted again
// (nobody could ever answer it) and its owner forgotten; so is a request
// whose create-request answer is unusable but names its pres_ex_id. A
// create-request that times out, loses its connection, or answers without
// a usable pres_ex_id (or too large to read) may leave a request at the
// agent that is neither deleted nor tracked: ACA-Py picks its id and
// thread, and only that answer names them.
//
// An answer naming a record proofgate already knows (remembered for an
// org, or forgotten) is a bad answer: that record is not this create's,
// so it is neither remembered for the caller's org nor deleted or
// forgotten by the cleanup, which touches only ids this create claimed.
func (b *Backend) SendOutOfBandRequest(ctx context.Context, org backend.Org, req backend.OOBRequest) (backend.OOBResult, error) {
	body, err := buildCreate(req)
	if err != nil {
		return backend.OOBResult{}, err
	}
	call := agent.Request{Method: http.MethodPost, Path: "/present-proof-2.0/create-request", JSON: body}
	// Not cut off when the caller goes away (the client's timeout still
	// bounds it): a request the agent made is then known, and deleted.
	resp, err := b.do(context.WithoutCancel(ctx), org, call)
	if err != nil {
		return backend.OOBResult{}, err
	}
	if resp.Status/100 != 2 {
		return backend.OOBResult{}, b.client.StatusError(call, resp, false)
	}
	rec, err := normalize(resp.Body)
	if err != nil {
		bad := b.client.BadAnswer(call, err.Error())
		// The agent may have made a request it answered about unusably:
		// when the answer still names it, it is deleted (nobody gets its
		// invitation), unless proofgate knows that id: then it is some
		// other request's.
		if px, _ := readPresEx(resp.Body); isUUID4(px.PresExID) && !b.owners.Known(px.PresExID) {
			b.discard(org, px.PresExID)
		}
		return backend.OOBResult{}, bad
	}
	// The answer names the record: its owner is made durable while the
	// invitation is created, and waited for before either outcome. Start
	// claims the id first, so a record proofgate already knows is refused
	// before anything is done to it.
	owner, err := b.owners.Start(rec.ID, org, rec.ThreadID, req.RequestType)
	if err != nil { // agent.ErrKnownRecord
		return backend.OOBResult{}, b.client.BadAnswer(call, "create-request answer names a presentation exchange proofgate already knows, not a new one")
	}
	if err := ctx.Err(); err != nil {
		b.undo(org, rec.ID, owner) // nobody will get its invitation
		return backend.OOBResult{}, err
	}

	icall := agent.Request{Method: http.MethodPost, Path: "/out-of-band/create-invitation", JSON: b.buildInvitation(org, req, rec.ID)}
	iresp, err := b.do(ctx, org, icall)
	if err == nil && iresp.Status/100 != 2 {
		err = b.client.StatusError(icall, iresp, false)
	}
	var inv invitationRecord
	var oobID string
	if err == nil {
		var ok bool
		if inv, ok = readInvitationRecord(iresp.Body); ok {
			oobID, ok = agent.MessageID(inv.Invitation)
		}
		if !ok || oobID == "" || inv.InvitationURL == "" {
			err = b.client.BadAnswer(icall, "create-invitation answer without invitation or invitation_url")
		}
	}
	if err != nil {
		b.undo(org, rec.ID, owner)
		return backend.OOBResult{}, err
	}
	if err := owner.Wait(); err != nil {
		// Nobody gets the invitation: both records go, the invitation's
		// first (a holder who had it could not answer a request deleted
		// before it anyway, but the out-of-band record would stay).
		b.discardInvitation(org, oobID)
		b.discard(org, rec.ID)
		return backend.OOBResult{}, err
	}

	rec.OrgID = org.ID
	rec.AutoAcceptProof = req.AutoAcceptProof
	return backend.OOBResult{
		ProofRecord:   rec,
		Invitation:    inv.Invitation,
		OutOfBandID:   oobID,
		InvitationURL: inv.InvitationURL,
	}, nil
}

// undo deletes the request this create made (id, whose owner it
// started) and forgets its owner once that is durable.
func (b *Backend) undo(org backend.Org, id string, owner agent.Remembering) {
	b.discard(org, id)
	if owner.Wait() == nil {
		b.forget(org, id)
	}
}

// discard deletes a presentation exchange that no invitation carries, on
// a context of its own: the caller's may be what ran out.
func (b *Backend) discard(org backend.Org, id string) {
	if err := b.deleteAgain(org, recordPath(id), true); err != nil {
		b.client.Logger().Error("could not delete a presentation request left without invitation",
			zap.String("pres_ex_id", id), zap.String("org", org.ID), zap.Error(err))
		// Looked at again, and deleted, by the orphan sweeps.
		if b.orphans != nil {
			b.orphans.RecordRecord(org, id, "not deleted", time.Now())
		}
	}
}

// forget drops the owner of a request that was deleted again. A failure
// only leaves an owner of a record the agent no longer has, which no
// accept can use; it is logged.
func (b *Backend) forget(org backend.Org, id string) {
	if err := b.owners.Forget(context.Background(), id); err != nil {
		b.client.Logger().Warn("could not forget the owner of a deleted presentation request",
			zap.String("pres_ex_id", id), zap.String("org", org.ID), zap.Error(err))
	}
}
