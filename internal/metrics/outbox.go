package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Backlog is what an outbox reports at each scrape: how many messages wait
// (queued or being delivered) and when the oldest of them was queued (zero
// when none waits).
type Backlog func() (depth int, oldest time.Time)

// outboxCollector asks every running outbox for its backlog when Prometheus
// scrapes, so the gauges are never stale and nobody updates them on the
// hot path.
type outboxCollector struct {
	depth, age *prometheus.Desc

	sources sourceSet[source]
	now     func() time.Time
}

type source struct {
	kind string
	f    Backlog
}

var outboxes = &outboxCollector{
	depth: prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, "outbox_depth"),
		"Messages waiting in the outbox (queued or being delivered), by kind (mail, webhook, ack).", []string{"kind"}, nil),
	age: prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, "outbox_oldest_age_seconds"),
		"Age of the oldest message waiting in the outbox, by kind; 0 when none waits.", []string{"kind"}, nil),
	now: time.Now,
}

// ReportOutbox makes f the backlog of an outbox of kind (KindMail,
// KindWebhook, KindAck) until the returned function is called (at the
// outbox's stop). Several outboxes of one kind add up.
func ReportOutbox(kind string, f Backlog) (stop func()) {
	return outboxes.sources.add(source{bounded(kind, KindMail, KindWebhook, KindAck), f})
}

func (o *outboxCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- o.depth
	ch <- o.age
}

func (o *outboxCollector) Collect(ch chan<- prometheus.Metric) {
	srcs := o.sources.snapshot()
	type total struct {
		depth  int
		oldest time.Time
	}
	// Every kind is reported, waiting or not, so alerts see a zero rather
	// than an absent series.
	totals := map[string]*total{KindMail: {}, KindWebhook: {}, KindAck: {}}
	for _, s := range srcs {
		d, oldest := s.f()
		t := totals[s.kind]
		t.depth += d
		if !oldest.IsZero() && (t.oldest.IsZero() || oldest.Before(t.oldest)) {
			t.oldest = oldest
		}
	}
	now := o.now()
	for kind, t := range totals {
		age := 0.0
		if !t.oldest.IsZero() {
			age = max(0, now.Sub(t.oldest).Seconds())
		}
		ch <- prometheus.MustNewConstMetric(o.depth, prometheus.GaugeValue, float64(t.depth), kind)
		ch <- prometheus.MustNewConstMetric(o.age, prometheus.GaugeValue, age, kind)
	}
}
