package proofgate

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/metrics"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// opGetRecord is the metrics label of GET /proofs/{id}.
const opGetRecord = "get_record"

// lifecycleMetrics count what happens to proof records after the API
// calls: notifications and their delivery. Registered with the others
// (registerMetrics); labels are bounded (kinds, outcomes, states).
var lifecycleMetrics = struct {
	changes *prometheus.CounterVec
	events  prometheus.Counter
	swept   *prometheus.CounterVec
}{
	swept: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy", Subsystem: "proofgate", Name: "sweeper_removed_total",
		Help: "What the sweeper removed or expired: records (past record_retention), invitations_expired (past invitation_ttl), short_urls, observed_states, idempotency_keys.",
	}, []string{"what"}),
	changes: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy", Subsystem: "proofgate", Name: "state_changes_total",
		Help: "State changes of proof records notified (webhooks, Caddy events), by new state.",
	}, []string{"state"}),
	events: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "caddy", Subsystem: "proofgate", Name: "webhook_stage_failures_total",
		Help: "State changes whose webhook messages could not be queued (storage failed).",
	}),
}

// stateLabel bounds the state label: an agent's record may name any
// state, and each would stay a series for the process's life. The states
// a verifier's record takes in proofgate, credo-controller and ACA-Py are
// kept; any other is "other".
func stateLabel(state string) string {
	switch state {
	case backend.StateRequestSent, backend.StateProposalReceived, backend.StatePresentationReceived,
		backend.StateDone, backend.StateAbandoned, "declined", "deleted":
		return state
	}
	return "other"
}

func lifecycleCollectors() []prometheus.Collector {
	return []prometheus.Collector{lifecycleMetrics.changes, lifecycleMetrics.events, lifecycleMetrics.swept}
}

// MetricNames returns the name of every metric proofgate exports, wherever
// it is registered: for the checks of the example dashboard and alert
// rules (observability/), which must show and may use only these.
func MetricNames() []string {
	names := append(metrics.Names(), metrics.NamesOf(append(lifecycleCollectors(), agent.Collectors()...)...)...)
	slices.Sort(names)
	return names
}
