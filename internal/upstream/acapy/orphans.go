package acapy

import (
	"context"
	"net/http"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// A presentation request proofgate made and then could not delete (a
// create that failed after ACA-Py made it, whose DELETE failed too) is
// recorded as an orphan: no client has its invitation, but a prover who
// saw it could still answer it. The sweeps delete it again until ACA-Py
// no longer has it, and list it in the log and the orphan gauge
// meanwhile.

// resolveOrphan deletes an orphan's request at the agent: gone once ACA-Py
// answers the DELETE, or no longer has the record.
func (b *Backend) resolveOrphan(ctx context.Context, o agent.Orphan) (agent.Orphan, bool, error) {
	if o.ProofRecordID == "" {
		return o, false, nil // nothing to look it up by
	}
	org := backend.Org{ID: o.OrgID, Tenant: o.Tenant}
	call := agent.Request{Method: http.MethodDelete, Path: recordPath(o.ProofRecordID), Idempotent: true}
	resp, err := b.do(ctx, org, call)
	if err != nil {
		return o, false, err
	}
	if resp.Status/100 != 2 && resp.Status != http.StatusNotFound {
		return o, false, b.client.StatusError(call, resp, false)
	}
	return o, true, nil
}
