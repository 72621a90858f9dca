package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// labeledCounts is a counter vector of one label whose values are a fixed
// list: one atomic word per value, side by side, read into the metric at
// each scrape. The counters of rejected requests (validation failures,
// auth failures) are recorded on answers of tens of microseconds, and a
// count here touches one cache line where a client_golang counter is
// reached through its series pointer and object (see requestSeries). A
// value's series appears once counted, as with client_golang's vectors.
type labeledCounts struct {
	desc   *prometheus.Desc
	values []string
	counts []atomic.Uint64
}

func newLabeledCounts(name, help, label string, values []string) *labeledCounts {
	return &labeledCounts{
		desc:   prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, name), help, []string{label}, nil),
		values: values,
		counts: make([]atomic.Uint64, len(values)),
	}
}

// add counts n for values[i].
func (c *labeledCounts) add(i int, n uint64) { c.counts[i].Add(n) }

// count is the count of values[i].
func (c *labeledCounts) count(i int) uint64 { return c.counts[i].Load() }

func (c *labeledCounts) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *labeledCounts) Collect(ch chan<- prometheus.Metric) {
	for i := range c.counts {
		if n := c.counts[i].Load(); n > 0 {
			ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(n), c.values[i])
		}
	}
}
