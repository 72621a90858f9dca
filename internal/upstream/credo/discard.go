package credo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// DiscardRecord implements backend.Discarder. credo-controller has no
// route that deletes a proof record, but it deletes the invitation's
// out-of-band record (DELETE /didcomm/oob/{outOfBandId}), and without it
// Credo takes no answer to the request: it matches an answer to an
// out-of-band request through that record, so a holder's handshake finds
// no invitation, and a presentation sent over a connection it already had
// is refused (TestRealCredoDiscardedInvitation, against a real Credo
// 0.5.19 verifier). The proof record stays at the agent, in request-sent.
//
// The out-of-band record is found by the invitation's @id (the create
// answers the invitation, not the record's id): every record the list
// names for it is deleted, and a 404 is success (it is gone). Each call
// runs on a context of its own with the backend's timeout, since the
// caller's may be what ran out. The owner is forgotten whatever the agent
// did: the create failed, so its record is nobody's to accept through
// proofgate. The agent's failure is returned, and the invitation may
// then still be answered at the agent.
//
// In the legacy layout a tenant's invitation cannot be deleted (oobPath):
// DiscardRecord then does nothing, and says so with errors.ErrUnsupported.
func (b *Backend) DiscardRecord(ctx context.Context, org backend.Org, created backend.OOBResult) error {
	err := b.deleteInvitation(org, created.OutOfBandID)
	if errors.Is(err, errors.ErrUnsupported) {
		return err // nothing done: the owner stays
	}
	return errors.Join(err, b.owners.Forget(ctx, created.ProofRecord.ID))
}

var _ backend.Discarder = (*Backend)(nil)

// withdrawInvitation deletes the invitation of a request nobody received
// (its create failed after the agent made it) and reports whether it is
// gone. A request whose invitation is gone cannot be answered, so it
// need not be tracked as an orphan; one whose invitation stays (the
// delete failed, or the legacy layout has no route for a tenant's) is.
func (b *Backend) withdrawInvitation(org backend.Org, invitationID string) bool {
	err := b.deleteInvitation(org, invitationID)
	if err != nil && !errors.Is(err, errors.ErrUnsupported) {
		b.client.Logger().Warn("could not delete the invitation of a request nobody received",
			zap.String("invitation_id", invitationID), zap.String("org", org.ID), zap.Error(err))
	}
	return err == nil
}

var errNoTenantInvitationRoute = fmt.Errorf("the legacy route layout has no route that deletes a tenant's invitation: %w", errors.ErrUnsupported)

// deleteInvitation deletes the out-of-band records of invitation
// invitationID; errNoTenantInvitationRoute, having done nothing, where the
// layout has no route for it (oobPath).
func (b *Backend) deleteInvitation(org backend.Org, invitationID string) error {
	base, ok := b.oobPath(org.Tenant)
	if !ok {
		return errNoTenantInvitationRoute
	}
	if invitationID == "" {
		// Not to list every invitation of the wallet: the create always
		// has one.
		return errors.New("no invitation id to find the out-of-band record by")
	}
	list := agent.Request{
		Method: http.MethodGet, Path: base,
		RawQuery: "invitationId=" + url.QueryEscape(invitationID), Idempotent: true,
	}
	resp, err := b.again(org, list)
	if err != nil {
		return err
	}
	if resp.Status/100 != 2 {
		return b.refused(org, list, resp, false)
	}
	ids, ok := invitationRecords(resp.Body, invitationID)
	if !ok {
		return b.client.BadAnswer(list, "out-of-band record list is not a JSON array of records")
	}
	var errs []error
	for _, id := range ids {
		del := agent.Request{Method: http.MethodDelete, Path: base + "/" + url.PathEscape(id), Idempotent: true}
		resp, err := b.again(org, del)
		if err == nil && resp.Status/100 != 2 && resp.Status != http.StatusNotFound {
			err = b.refused(org, del, resp, true)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// invitationRecords returns the ids of the out-of-band records in a list
// answer whose invitation is invitationID. The agent filters by it
// already; the ids are checked again so that an agent or proxy that
// ignores the filter never gets every invitation deleted. A receiver's
// record (an agent that received its own invitation) is not the create's.
func invitationRecords(body []byte, invitationID string) (ids []string, ok bool) {
	var list []struct {
		ID         string `json:"id"`
		Role       string `json:"role"`
		Invitation struct {
			ID string `json:"@id"`
		} `json:"outOfBandInvitation"`
	}
	if json.Unmarshal(body, &list) != nil {
		return nil, false
	}
	for _, r := range list {
		if r.ID != "" && r.Invitation.ID == invitationID && r.Role != "receiver" {
			ids = append(ids, r.ID)
		}
	}
	return ids, true
}

// again sends call on a context of its own with the backend's timeout: a
// discard runs after its request failed, and the caller's context may be
// what ran out.
func (b *Backend) again(org backend.Org, call agent.Request) (*agent.Response, error) {
	ctx, cancel := b.Detached()
	defer cancel()
	return b.do(ctx, org, call)
}
