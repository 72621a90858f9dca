package proofgate

import (
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/config"
)

// agentAt stands for a backend that calls the agent identity names.
type agentAt struct {
	backend.Backend
	identity string
}

func (a *agentAt) AgentIdentity() string { return a.identity }

// TestExclusiveByAgent: exclusivity is decided by the wallet an org's
// records live in (agent and tenant), not by the backend block it is
// routed through: two blocks naming one agent share its wallets.
func TestExclusiveByAgent(t *testing.T) {
	const agentX, agentY = "credo http://x:3000", "credo http://y:3000"
	byName := map[string]backend.Backend{
		"local": &named{name: "local"},
		"x1":    &agentAt{identity: agentX},
		"x2":    &agentAt{identity: agentX}, // the same agent, other options
		"y":     &agentAt{identity: agentY},
		"ydef":  &agentAt{identity: agentY},
	}
	for _, tc := range []struct {
		name        string
		defaultName string
		orgs        map[string]config.OrgRoute
		exclusive   map[string]bool // orgs not listed: false
	}{
		{"two blocks, one agent's base wallet", "local",
			map[string]config.OrgRoute{"a": {Backend: "x1"}, "b": {Backend: "x2"}},
			nil},
		{"two blocks, one agent, tenants of their own", "local",
			map[string]config.OrgRoute{"a": {Backend: "x1", Tenant: "t-a"}, "b": {Backend: "x2", Tenant: "t-b"}},
			map[string]bool{"a": true, "b": true}},
		{"two blocks, one agent, one tenant", "local",
			map[string]config.OrgRoute{"a": {Backend: "x1", Tenant: "t"}, "b": {Backend: "x2", Tenant: "t"}},
			nil},
		{"one org on each agent", "local",
			map[string]config.OrgRoute{"a": {Backend: "x1"}, "b": {Backend: "y"}},
			map[string]bool{"a": true, "b": true}},
		{"another block of the default's agent", "ydef",
			map[string]config.OrgRoute{"a": {Backend: "y"}, "b": {Backend: "x1"}, "c": {Backend: "y", Tenant: "t-c"}},
			map[string]bool{"b": true, "c": true}},
		{"the default itself", "x1",
			map[string]config.OrgRoute{"a": {Backend: "x1"}, "b": {Backend: "x1", Tenant: "t-b"}},
			map[string]bool{"b": true}},
		{"a backend that is no agent", "x1",
			map[string]config.OrgRoute{"a": {Backend: "local"}},
			map[string]bool{"a": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &router{byName: byName, orgs: tc.orgs, defaultName: tc.defaultName}
			r.index()
			for org := range tc.orgs {
				if got := r.Exclusive(org); got != tc.exclusive[org] {
					t.Errorf("Exclusive(%s) = %v, want %v", org, got, tc.exclusive[org])
				}
			}
			if r.Exclusive("unlisted") {
				t.Error("an unlisted org is exclusive")
			}
		})
	}
}
