package proofgate

import (
	"github.com/prometheus/client_golang/prometheus"
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
		Help: "What the sweeper removed or expired: records (past record_retention), invitations_expired (past invitation_ttl), short_urls, observed_states.",
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

func lifecycleCollectors() []prometheus.Collector {
	return []prometheus.Collector{lifecycleMetrics.changes, lifecycleMetrics.events, lifecycleMetrics.swept}
}
