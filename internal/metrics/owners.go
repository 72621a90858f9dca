package metrics

import "github.com/prometheus/client_golang/prometheus"

// Owners is what a log of record owners (package ownerlog) reports at each
// scrape: the owners it holds in memory, and how many it has removed for
// being past owner_retention since it opened.
type Owners func() (held int, expired uint64)

// owners adds up every open owners log.
var owners = &summedPair{
	first: prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, "record_owners"),
		"Owners of records created through agents held in memory (about 55 bytes each): which org created each record, for authorizing accepts. owner_retention bounds them.", nil, nil),
	second: prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, "record_owners_expired_total"),
		"Owners of records created through agents removed for being past owner_retention.", nil, nil),
	firstType: prometheus.GaugeValue, secondType: prometheus.CounterValue,
}

// ReportOwners makes f an owners log counted at each scrape until the
// returned function is called (when the log closes).
func ReportOwners(f Owners) (stop func()) {
	return owners.sources.add(func() (float64, float64) {
		held, expired := f()
		return float64(held), float64(expired)
	})
}
