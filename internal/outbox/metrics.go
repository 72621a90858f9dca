package outbox

import "github.com/proofgate/proofgate/internal/metrics"

// count records an attempt's outcome in the one delivery counter of every
// outbox (caddy_proofgate_outbox_deliveries_total, by kind and outcome:
// sent, failed for good, or retry).
func count(kind string, s Status) {
	outcome := metrics.Retry
	if s.State.Final() {
		outcome = string(s.State)
	}
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
