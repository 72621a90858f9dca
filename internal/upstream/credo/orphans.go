package credo

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// credo-controller has no route that deletes a proof record, so a request
// created by a call whose answer proofgate lost cannot be cleaned up: it
// is recorded as an orphan, looked at again every sweep, and listed in the
// log and the orphan gauge until the agent no longer holds it open.

// orphanReason tells whether a failed create may have acted at the agent
// anyway, and why: a timeout, a connection lost mid-call, or an answer
// that came but could not be used. "" when the agent certainly did not
// create anything (a refusal, an agent that could not be reached).
func orphanReason(err error) string {
	var ue *backend.UpstreamError
	switch {
	case errors.Is(err, backend.ErrTimeout):
		return "timeout"
	case errors.As(err, &ue) && ue.Status == 0:
		return "connection lost"
	case errors.As(err, &ue) && ue.Status/100 == 2:
		return "answer unreadable"
	}
	return ""
}

// ended are the states in which a request can no longer be answered.
var ended = map[string]bool{backend.StateDone: true, "abandoned": true, "declined": true}

// resolveOrphan looks an orphan up at the agent by its thread: gone when
// the agent holds no open verifier record for it, or when its record still
// waits in request-sent and its invitation, which the create could not
// withdraw, is withdrawn now (nobody received it, and a request whose
// invitation is gone cannot be answered). The legacy layout has no route
// for a tenant's invitation: such an orphan stays listed.
func (b *Backend) resolveOrphan(ctx context.Context, o agent.Orphan) (agent.Orphan, bool, error) {
	if o.ThreadID == "" {
		return o, false, nil // nothing to look it up by
	}
	org := backend.Org{ID: o.OrgID, Tenant: o.Tenant}
	call := agent.Request{
		Method: http.MethodGet, Path: b.listPath(org.Tenant),
		Query: url.Values{"threadId": {o.ThreadID}}, Idempotent: true,
	}
	resp, err := b.do(ctx, org, call)
	if err != nil {
		return o, false, err
	}
	if resp.Status/100 != 2 {
		return o, false, b.refused(org, call, resp, false)
	}
	var list []json.RawMessage
	if json.Unmarshal(resp.Body, &list) != nil {
		return o, false, b.client.BadAnswer(call, "proof list is not a JSON array")
	}
	for _, raw := range list {
		rec, err := normalize(raw)
		if err != nil || rec.ThreadID != o.ThreadID || rec.Role != backend.RoleVerifier {
			continue
		}
		if ended[rec.State] {
			return o, true, nil
		}
		o.ProofRecordID, o.State = rec.ID, rec.State
		if rec.State != backend.StateRequestSent || o.InvitationID == "" {
			return o, false, nil
		}
		if !b.withdrawInvitation(org, o.InvitationID) {
			return o, false, nil // kept, with what was learnt (a failed delete is logged; a legacy tenant's has no route)
		}
		b.client.Logger().Info("withdrew the invitation of an orphaned proof request; it can no longer be answered",
			zap.String("thread_id", o.ThreadID), zap.String("invitation_id", o.InvitationID),
			zap.String("proof_record_id", o.ProofRecordID), zap.String("org", o.OrgID))
		return o, true, nil
	}
	return o, true, nil
}
