package handlers

import (
	"net/http"

	"github.com/proofgate/proofgate/internal/backend"
)

// GetProofRecord serves GET /proofs/{proofRecordId}: the ProofRecord, with
// the same authentication and org checks as accept (unknown → 404, another
// org's → 403). Local records come from storage, agents' from the agent.
func (g *Gateway) GetProofRecord(w http.ResponseWriter, r *http.Request, recordID string) {
	b, org, ok := g.recordAccess(w, r, recordID)
	if !ok {
		return
	}
	reader, ok := b.(backend.RecordReader)
	if !ok {
		writeBackendError(w, r, g.Logger, recordID, backend.ErrNotFound)
		return
	}
	rec, err := reader.GetProofRecord(r.Context(), org, recordID)
	if err != nil {
		writeBackendError(w, r, g.Logger, recordID, err)
		return
	}
	g.observe(r.Context(), b, rec)
	writeJSON(w, http.StatusOK, rec)
}
