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
	// exclusive holds the orgs that have a wallet to themselves (index).
	exclusive map[string]bool
}

// agentBackend is a backend that calls an agent (credo, acapy):
// AgentIdentity names the agent, the same for every backend block that
// names it (agent.Config.AgentIdentity).
type agentBackend interface {
	AgentIdentity() string
}

// wallet is where an org's records live: an agent (or a backend that is
// not one) and a tenant of it ("": its base wallet).
type wallet struct{ agent, tenant string }

// agentOf names the agent backend name calls; a backend that calls none
// (local) is its own.
func (r *router) agentOf(name string) string {
	if a, ok := r.byName[name].(agentBackend); ok && a.AgentIdentity() != "" {
		return a.AgentIdentity()
	}
	return "backend:" + name
}

// Name returns the configured name of b, for the metrics and the request
// log.
func (r *router) Name(b backend.Backend) string { return r.names[b] }

// index fixes the order in which backends are asked about records (the
// default first, since most records live there) and which orgs are
// exclusive.
func (r *router) index() {
	r.orgIDs = slices.Sorted(maps.Keys(r.orgs))
	r.all = r.all[:0]
	if b, ok := r.byName[r.defaultName]; ok {
		r.all = append(r.all, b)
	}
	// The rest by name: the order decides which local verifier's public
	// URL a handler without its own takes for short URLs, and it must not
	// change from one load of a config to the next.
	for _, name := range slices.Sorted(maps.Keys(r.byName)) {
		if name != r.defaultName {
			r.all = append(r.all, r.byName[name])
		}
	}
	// Wallets are counted by agent, not by backend block: two blocks may
	// name one agent (for other timeouts or credentials), and orgs routed
	// through either to its base wallet, or to one tenant, share it.
	// Unlisted orgs share the default's base wallet.
	orgsIn := make(map[wallet]int, len(r.orgs)+1)
	if r.defaultName != "" {
		orgsIn[wallet{agent: r.agentOf(r.defaultName)}]++
	}
	for _, rt := range r.orgs {
		orgsIn[wallet{r.agentOf(rt.Backend), rt.Tenant}]++
	}
	r.exclusive = make(map[string]bool, len(r.orgs))
	for id, rt := range r.orgs {
		if orgsIn[wallet{r.agentOf(rt.Backend), rt.Tenant}] == 1 {
			r.exclusive[id] = true
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

// Exclusive implements handlers.Router: the org has a tenant of an agent
// no other org is routed to, or is the only org routed to an agent's base
// wallet, through whichever backend, where that agent is not the
// default's (unlisted orgs share the default's base wallet).
func (r *router) Exclusive(orgID string) bool { return r.exclusive[orgID] }

// Orgs implements handlers.Router.
func (r *router) Orgs() []string { return r.orgIDs }
