package handlers

import (
	"net/http"

	"github.com/proofgate/proofgate/internal/backend"
)

// AcceptPresentation serves POST /proofs/{proofRecordId}/accept-presentation.
// A body, if sent, is ignored (the operation takes none).
func (g *Gateway) AcceptPresentation(w http.ResponseWriter, r *http.Request, recordID string) {
	b, org, ok := g.recordAccess(w, r, recordID)
	if !ok {
		return
	}
	ctx := changesContext(w, r)
	rec, err := b.AcceptPresentation(ctx, org, recordID)
	if err != nil {
		writeBackendError(w, r, g.Logger, recordID, err)
		return
	}
	prev := backend.StatePresentationReceived // the only state accept leaves
	g.reportChange(ctx, b, prev, rec)
	writeJSON(w, http.StatusOK, rec)
}
