package handlers

import (
	"net/http"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/validate"
)

// recordAccess does what every route on one proof record starts with:
// authenticate, check the id (400 before any lookup), find the owning org
// and its backend (404 when unknown), and check the caller may act for that
// org (403). It writes the refusal itself and reports ok false; otherwise
// it returns the record's backend and org, with the tenant the record
// lives on.
func (g *Gateway) recordAccess(w http.ResponseWriter, r *http.Request, recordID string) (backend.Backend, backend.Org, bool) {
	principal, ok := g.authenticate(w, r)
	if !ok {
		return nil, backend.Org{}, false
	}
	if err := validate.ProofRecordID(recordID); err != nil {
		writeInvalid(w, err.Error())
		return nil, backend.Org{}, false
	}
	b, owner, err := g.findRecord(r.Context(), principal, recordID)
	orgID := owner.ID
	if err != nil {
		writeBackendError(w, r, g.Logger, recordID, err)
		return nil, backend.Org{}, false
	}
	g.noteBackend(w, b, orgID)
	if !principal.Authorize(orgID, g.AllowedRoles) {
		writeForbidden(w)
		return nil, backend.Org{}, false
	}
	// The record lives where it was made: on the tenant its owner names,
	// even once the org is routed elsewhere (moved off that tenant or that
	// agent). Without one, the org's routing says, where it is routed to
	// this backend (a record made before tenants were remembered, or on
	// the agent directly).
	org := owner
	if routed, routedOrg, ok := g.Backends.Route(orgID); ok && routed == b && owner.Tenant == "" {
		org = routedOrg
	}
	return b, org, true
}
