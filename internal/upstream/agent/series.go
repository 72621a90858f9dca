package agent

import (
	"github.com/caddyserver/caddy/v2"

	"github.com/proofgate/proofgate/internal/metrics"
)

// agentsInUse counts, per agent (AgentID), the loaded configs that call
// it. The agent's metric series (upstream_orphans and
// agent_call_duration_seconds) outlive a config, like every proofgate
// metric, so that counts survive a reload; but once no config names the
// agent, they would stay forever at their last value, and an alert on
// orphans would keep firing for an agent the operator removed. Caddy
// provisions the new config before it cleans up the old one, so an agent
// kept across a reload never drops to zero users.
var agentsInUse = caddy.NewUsagePool()

// agentSeries is one agent's entry in agentsInUse; it removes the
// agent's series when its last user is cleaned up.
type agentSeries string

// Destruct implements caddy.Destructor.
func (a agentSeries) Destruct() error {
	// Forgotten first: a late orphan count (setOrphans) either lands
	// before and is deleted here, or is not made.
	metrics.ForgetAgent(string(a))
	orphanGauge.DeleteLabelValues(string(a))
	return nil
}

// useAgent notes that a config calls agent; releaseAgent undoes it.
func useAgent(agent string) {
	agentsInUse.LoadOrStore(agent, agentSeries(agent))
	metrics.UseAgent(agent)
}

// setOrphans sets the agent's upstream_orphans, unless no config calls
// the agent any more (a sweep that ended after its config's Cleanup).
func setOrphans(agent string, n int) {
	metrics.IfAgentUsed(agent, func() { orphanGauge.WithLabelValues(agent).Set(float64(n)) })
}

func releaseAgent(agent string) { _, _ = agentsInUse.Delete(agent) }
