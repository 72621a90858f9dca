package proofgate

import (
	"maps"
	"slices"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/config"
)

// router maps orgs onto the configured backends.
type router struct {
	byName      map[string]backend.Backend
	orgs        map[string]config.OrgRoute
	defaultName string
	all         []backend.Backend
	orgIDs      []string // sorted keys of orgs
	names       map[backend.Backend]string
}

// Name returns the configured name of b, for the metrics and the request
// log.
func (r *router) Name(b backend.Backend) string { return r.names[b] }

// index fixes the order in which backends are asked about records: the
// default first, since most records live there.
func (r *router) index() {
	r.orgIDs = slices.Sorted(maps.Keys(r.orgs))
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

// Exclusive implements handlers.Router: the org has a tenant no other org
// is routed to, or is the only org routed to the base wallet of a backend
// that is not the default (unlisted orgs share the default's).
func (r *router) Exclusive(orgID string) bool {
	rt, ok := r.orgs[orgID]
	if !ok {
		return false
	}
	if rt.Tenant == "" && rt.Backend == r.defaultName {
		return false
	}
	for other, o := range r.orgs {
		if other != orgID && o.Backend == rt.Backend && o.Tenant == rt.Tenant {
			return false
		}
	}
	return true
}

// Orgs implements handlers.Router.
func (r *router) Orgs() []string { return r.orgIDs }
