package handlers

import (
	"net/http"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/metrics"
	"github.com/proofgate/proofgate/internal/validate"
)

// AcceptPresentation serves POST /proofs/{proofRecordId}/accept-presentation.
// A body, if sent, is ignored (the operation takes none).
func (g *Gateway) AcceptPresentation(w http.ResponseWriter, r *http.Request, recordID string) {
	principal, ok := g.authenticate(w, r)
	if !ok {
		return
	}
	if err := validate.ProofRecordID(recordID); err != nil {
		metrics.ValidationFailures([]string{err.Error()})
		writeError(w, http.StatusBadRequest, []string{err.Error()})
		return
	}
	b, orgID, err := g.findRecord(r.Context(), principal, recordID)
	if err != nil {
		writeBackendError(w, g.Logger, recordID, err)
		return
	}
	g.noteBackend(w, b, orgID)
	if !principal.Authorize(orgID, g.AllowedRoles) {
		writeForbidden(w)
		return
	}
	org := backend.Org{ID: orgID}
	if routed, routedOrg, ok := g.Backends.Route(orgID); ok && routed == b {
		org = routedOrg
	}
	rec, err := b.AcceptPresentation(r.Context(), org, recordID)
	if err != nil {
		writeBackendError(w, g.Logger, recordID, err)
		return
	}
	prev := backend.StatePresentationReceived // the only state accept leaves
	g.reportChange(r.Context(), b, prev, rec)
	writeJSON(w, http.StatusOK, rec)
}
