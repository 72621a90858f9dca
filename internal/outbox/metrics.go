package outbox

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/proofgate/proofgate/internal/metrics"
)

// attempts counts delivery outcomes of every deliverer, by kind and
// outcome. Package-global like Caddy's own metrics: each config load
// registers it again with its registry (Collector) and the counts carry
// over.
var attempts = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "caddy", Subsystem: "proofgate", Name: "outbox_attempts_total",
	Help: "Outbox delivery attempts, by kind (email, webhook, ack) and outcome: sent, failed (for good), or retry (will be tried again).",
}, []string{"kind", "outcome"})

// Collector is the outbox's metric, for the module to register.
func Collector() prometheus.Collector { return attempts }

func count(kind string, s Status) {
	outcome := "retry"
	if s.State.Final() {
		outcome = string(s.State)
	}
	attempts.WithLabelValues(kind, outcome).Inc()
	metrics.OutboxDelivery(metricKind(kind), outcome)
}

// metricKind maps an outbox kind onto the bounded kind label of
// internal/metrics (the e-mail kind is "mail" there).
func metricKind(kind string) string {
	if kind == "email" {
		return metrics.KindMail
	}
	return kind
}
