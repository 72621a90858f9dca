package metrics

import "github.com/prometheus/client_golang/prometheus"

// Owners is what a log of record owners (package ownerlog) reports at each
// scrape: the owners it holds in memory, and how many it has removed for
// being past owner_retention since it opened.
type Owners func() (held int, expired uint64)

// ownersCollector adds up every open owners log.
type ownersCollector struct {
	held, expired *prometheus.Desc
	sources       sourceSet[Owners]
}

var owners = &ownersCollector{
	held: prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, "record_owners"),
		"Owners of records created through agents held in memory (about 55 bytes each): which org created each record, for authorizing accepts. owner_retention bounds them.", nil, nil),
	expired: prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, "record_owners_expired_total"),
		"Owners of records created through agents removed for being past owner_retention.", nil, nil),
}

// ReportOwners makes f an owners log counted at each scrape until the
// returned function is called (when the log closes).
func ReportOwners(f Owners) (stop func()) { return owners.sources.add(f) }

func (o *ownersCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- o.held
	ch <- o.expired
}

func (o *ownersCollector) Collect(ch chan<- prometheus.Metric) {
	var held int
	var expired uint64
	for _, f := range o.sources.snapshot() {
		h, e := f()
		held += h
		expired += e
	}
	ch <- prometheus.MustNewConstMetric(o.held, prometheus.GaugeValue, float64(held))
	ch <- prometheus.MustNewConstMetric(o.expired, prometheus.CounterValue, float64(expired))
}
