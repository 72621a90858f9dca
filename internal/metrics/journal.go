package metrics

import "github.com/prometheus/client_golang/prometheus"

// Journal is what a record journal (package recordlog) reports at each
// scrape: the records it holds (their places are in memory) and the bytes
// of its files, superseded lines included until compaction removes them.
type Journal func() (records int, bytes int64)

// journals adds up every open record journal.
var journals = &summedPair{
	first: prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, "record_journal_records"),
		"Proof records in the local verifier's record journal (each one's place held in memory, about 35–45 bytes). record_retention bounds them.", nil, nil),
	second: prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, "record_journal_bytes"),
		"Bytes of the record journal's files on disk, superseded versions included until compaction.", nil, nil),
	firstType: prometheus.GaugeValue, secondType: prometheus.GaugeValue,
}

// ReportJournal makes f a record journal counted at each scrape until the
// returned function is called (when the journal closes).
func ReportJournal(f Journal) (stop func()) {
	return journals.sources.add(func() (float64, float64) {
		records, bytes := f()
		return float64(records), float64(bytes)
	})
}
