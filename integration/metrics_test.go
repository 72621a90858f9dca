package integration

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
)

// metricValue reads one sample from Caddy's admin /metrics.
func metricValue(t *testing.T, series string) float64 {
	t.Helper()
	resp, err := testClient.Get("http://" + adminAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` ([0-9.e+]+)$`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMetrics(t *testing.T) {
	startCaddy(t, "")
	created := `caddy_proofgate_requests_total{backend="local",class="2xx",code="201",operation="send_oob"}`
	denied := `caddy_proofgate_requests_total{backend="none",class="4xx",code="401",operation="send_oob"}`
	notFound := `caddy_proofgate_requests_total{backend="none",class="4xx",code="404",operation="accept_presentation"}`
	before := []float64{metricValue(t, created), metricValue(t, denied), metricValue(t, notFound)}
	journalRecords, journalBytes := metricValue(t, "caddy_proofgate_record_journal_records"), metricValue(t, "caddy_proofgate_record_journal_bytes")

	postJSON(t, oobPath(orgA, "indy"), keyA, indyBody)
	postJSON(t, oobPath(orgA, "indy"), keyA, indyBody)
	do(t, http.MethodPost, oobPath(orgA, "indy"), indyBody, "Content-Type: application/json")
	postJSON(t, acceptPath("9b2c6f0e-1d3a-4c5b-8e7f-0a1b2c3d4e5f"), keyA, "")
	do(t, http.MethodGet, "/elsewhere", "") // passed through: not counted

	for i, tc := range []struct {
		series string
		delta  float64
	}{{created, 2}, {denied, 1}, {notFound, 1}} {
		if got := metricValue(t, tc.series) - before[i]; got != tc.delta {
			t.Errorf("%s grew by %v, want %v", tc.series, got, tc.delta)
		}
	}
	// The two records are in the record journal (a test's storage is new).
	if got := metricValue(t, "caddy_proofgate_record_journal_records") - journalRecords; got != 2 {
		t.Errorf("caddy_proofgate_record_journal_records grew by %v, want 2", got)
	}
	if got := metricValue(t, "caddy_proofgate_record_journal_bytes") - journalBytes; got < 2*2000 {
		t.Errorf("caddy_proofgate_record_journal_bytes grew by %v, want two records' worth", got)
	}
	if metricValue(t, `caddy_proofgate_request_duration_seconds_count{backend="local",operation="send_oob"}`)+
		metricValue(t, `caddy_proofgate_request_duration_seconds_count{backend="none",operation="send_oob"}`) < 3 {
		t.Error("durations not observed")
	}
}
