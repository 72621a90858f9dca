package proofgate

import (
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/config"
)

// router maps orgs onto the configured backends.
type router struct {
	byName      map[string]backend.Backend
	orgs        map[string]config.OrgRoute
	defaultName string
	all         []backend.Backend
}

// index fixes the order in which backends are asked about records: the
// default first, since most records live there.
func (r *router) index() {
	r.all = r.all[:0]
	if b, ok := r.byName[r.defaultName]; ok {
		r.all = append(r.all, b)
	}
	for name, b := range r.byName {
		if name != r.defaultName {
			r.all = append(r.all, b)
		}
	}
}

// Route implements handlers.Router.
func (r *router) Route(orgID string) (backend.Backend, backend.Org, bool) {
	if rt, ok := r.orgs[orgID]; ok {
		b, ok := r.byName[rt.Backend]
		return b, backend.Org{ID: orgID, Tenant: rt.Tenant}, ok
	}
	b, ok := r.byName[r.defaultName]
	return b, backend.Org{ID: orgID}, ok
}

// All implements handlers.Router.
func (r *router) All() []backend.Backend { return r.all }
