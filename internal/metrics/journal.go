package metrics

import "github.com/prometheus/client_golang/prometheus"

// Journal is what a record journal (package recordlog) reports at each
// scrape: the records it holds (their places are in memory) and the bytes
// of its files, superseded lines included until compaction removes them.
type Journal func() (records int, bytes int64)

// journalCollector adds up every open record journal.
type journalCollector struct {
	records, bytes *prometheus.Desc
	sources        sourceSet[Journal]
}

var journals = &journalCollector{
	records: prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, "record_journal_records"),
		"Proof records in the local verifier's record journal (each one's place held in memory, about 35–45 bytes). record_retention bounds them.", nil, nil),
	bytes: prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, "record_journal_bytes"),
		"Bytes of the record journal's files on disk, superseded versions included until compaction.", nil, nil),
}

// ReportJournal makes f a record journal counted at each scrape until the
// returned function is called (when the journal closes).
func ReportJournal(f Journal) (stop func()) { return journals.sources.add(f) }

func (j *journalCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- j.records
	ch <- j.bytes
}

func (j *journalCollector) Collect(ch chan<- prometheus.Metric) {
	var records int
	var bytes int64
	for _, f := range j.sources.snapshot() {
		r, b := f()
		records += r
		bytes += b
	}
	ch <- prometheus.MustNewConstMetric(j.records, prometheus.GaugeValue, float64(records))
	ch <- prometheus.MustNewConstMetric(j.bytes, prometheus.GaugeValue, float64(bytes))
}
