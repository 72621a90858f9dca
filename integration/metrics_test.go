package integration

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// scrape reads Caddy's admin /metrics.
func scrape(t *testing.T) []byte {
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
	return b
}

// metricValue reads one sample from Caddy's admin /metrics.
func metricValue(t *testing.T, series string) float64 {
	t.Helper()
	b := scrape(t)
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

// An agent a reload takes out of the config leaves no series behind: its
// orphan gauge would otherwise stay at its last value (and an alert on it
// fire) for good. An agent the reload keeps keeps its counts.
func TestAgentSeriesAcrossReload(t *testing.T) {
	kept := openapitest.NewCredo(t, openapitest.CredoOptions{})
	removed := openapitest.NewCredo(t, openapitest.CredoOptions{})
	dir := t.TempDir()
	tester := newTester(t)
	config := func(agents ...string) string {
		c := globalOptions(dir) + "\n" + base + " {\n\tproofgate {\n"
		for i, url := range agents {
			name := "credo" + strconv.Itoa(i)
			c += "\t\tbackend " + name + " credo " + url + " {\n\t\t\ttoken " + openapitest.CredoDedicatedToken + "\n\t\t}\n"
			c += "\t\torg " + []string{orgA, orgB}[i] + " " + name + "\n"
		}
		return c + "\t\tauth {\n\t\t\tapi_key " + keyA + " org " + orgA + "\n\t\t\tapi_key " + keyB + " org " + orgB + "\n\t\t}\n\t}\n}\n"
	}
	tester.InitServer(config(kept.URL, removed.URL), "caddyfile")
	settle(t)
	unloadAtEnd(t)
	for _, key := range []string{keyA, keyB} {
		org := map[string]string{keyA: orgA, keyB: orgB}[key]
		if r := postJSON(t, oobPath(org, "indy"), key, indyBody); r.status != http.StatusCreated {
			t.Fatalf("create through %s: %d %s", org, r.status, r.body)
		}
	}
	label := func(url string) string { return `agent="credo ` + url + `"` }
	for _, url := range []string{kept.URL, removed.URL} {
		if !strings.Contains(string(scrape(t)), label(url)) {
			t.Fatalf("no agent_call_duration_seconds series for %s after a create", url)
		}
	}
	calls := `caddy_proofgate_agent_call_duration_seconds_count{` + label(kept.URL) + `,call="POST /didcomm/proofs/create-request-oob",outcome="2xx"}`
	before := metricValue(t, calls)

	tester.InitServer(config(kept.URL), "caddyfile") // the reload
	settle(t)
	metrics := string(scrape(t))
	if strings.Contains(metrics, label(removed.URL)) {
		t.Errorf("series of the removed agent %s still exported after the reload", removed.URL)
	}
	if after := metricValue(t, calls); after != before || before == 0 {
		t.Errorf("%s: %v before the reload, %v after; want the count kept", calls, before, after)
	}
}
