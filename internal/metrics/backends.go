package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// backendInfo exports backend_info{backend, type} = 1 for every backend a
// running config names: the join that lets alert rules and dashboards
// tell a backend's kind (local, credo, acapy, …) from its configured name,
// which is the operator's choice and the only backend label of the other
// series.
var backendInfo = &backendInfoCollector{
	desc: prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, "backend_info"),
		"Backends of the running configs, by configured name and type (local, credo, acapy); always 1. Join on backend to select series by type.",
		[]string{"backend", "type"}, nil),
}

type backendInfoCollector struct {
	desc    *prometheus.Desc
	sources sourceSet[[2]string]
}

// ReportBackend exports the backend name of type typ until the returned
// function is called (when the config that names it is cleaned up). Two
// configs naming it alike (a reload's old and new) export it once.
func ReportBackend(name, typ string) (stop func()) {
	return backendInfo.sources.add([2]string{name, typ})
}

func (c *backendInfoCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *backendInfoCollector) Collect(ch chan<- prometheus.Metric) {
	seen := map[[2]string]bool{}
	for _, b := range c.sources.snapshot() {
		if !seen[b] {
			seen[b] = true
			ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, 1, b[0], b[1])
		}
	}
}
