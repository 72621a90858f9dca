package handlers

import (
	"net/http"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/validate"
)

// GetProofRecord serves GET /proofs/{proofRecordId}: the ProofRecord, with
// the same authentication and org checks as accept (unknown → 404, another
// org's → 403). Local records come from storage, agents' from the agent.
func (g *Gateway) GetProofRecord(w http.ResponseWriter, r *http.Request, recordID string) {
	principal, ok := g.authenticate(w, r)
	if !ok {
		return
	}
	if err := validate.ProofRecordID(recordID); err != nil {
		writeError(w, http.StatusBadRequest, []string{err.Error()})
		return
	}
	b, orgID, err := g.findRecord(r.Context(), principal, recordID)
	if err != nil {
		writeBackendError(w, g.Logger, recordID, err)
		return
	}
	if !principal.Authorize(orgID, g.AllowedRoles) {
		writeForbidden(w)
		return
	}
	reader, ok := b.(backend.RecordReader)
	if !ok {
		writeBackendError(w, g.Logger, recordID, backend.ErrNotFound)
		return
	}
	org := backend.Org{ID: orgID}
	if routed, routedOrg, ok := g.Backends.Route(orgID); ok && routed == b {
		org = routedOrg
	}
	rec, err := reader.GetProofRecord(r.Context(), org, recordID)
	if err != nil {
		writeBackendError(w, g.Logger, recordID, err)
		return
	}
	g.observe(r.Context(), b, rec)
	writeJSON(w, http.StatusOK, rec)
}
