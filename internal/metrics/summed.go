package metrics

import "github.com/prometheus/client_golang/prometheus"

// summedPair reports two numbers added up over every open source (an
// owners log, a record journal), each source asked at scrape time.
type summedPair struct {
	first, second         *prometheus.Desc
	firstType, secondType prometheus.ValueType
	sources               sourceSet[func() (float64, float64)]
}

func (p *summedPair) Describe(ch chan<- *prometheus.Desc) {
	ch <- p.first
	ch <- p.second
}

func (p *summedPair) Collect(ch chan<- prometheus.Metric) {
	var a, b float64
	for _, f := range p.sources.snapshot() {
		x, y := f()
		a += x
		b += y
	}
	ch <- prometheus.MustNewConstMetric(p.first, p.firstType, a)
	ch <- prometheus.MustNewConstMetric(p.second, p.secondType, b)
}
