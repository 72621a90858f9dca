package integration

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/testenv/wallet"
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
	info := func(name string) string { return `caddy_proofgate_backend_info{backend="` + name + `",type="credo"}` }
	if metricValue(t, info("credo0")) != 1 || metricValue(t, info("credo1")) != 1 {
		t.Errorf("backend_info of credo0 and credo1 not exported:\n%s", scrape(t))
	}

	tester.InitServer(config(kept.URL), "caddyfile") // the reload
	settle(t)
	metrics := string(scrape(t))
	if strings.Contains(metrics, label(removed.URL)) {
		t.Errorf("series of the removed agent %s still exported after the reload", removed.URL)
	}
	if strings.Contains(metrics, `backend="credo1",type=`) || metricValue(t, info("credo0")) != 1 {
		t.Errorf("after the reload, want backend_info of credo0 alone:\n%s", metrics)
	}
	if after := metricValue(t, calls); after != before || before == 0 {
		t.Errorf("%s: %v before the reload, %v after; want the count kept", calls, before, after)
	}
}

// TestDIDCommCountedUnderItsBackend: a presentation the local backend
// takes over DIDComm (202) is counted under that backend's configured name
// (its endpoint chose it), not as answered before a backend (none); a
// message refused unread is a rejected DIDComm message.
func TestDIDCommCountedUnderItsBackend(t *testing.T) {
	startSite(t, "\t\tbackend verifier local {\n\t\t\tpublic_url "+base+"\n\t\t\tallow_private_endpoints\n\t\t}\n\t\tauth {\n\t\t\tapi_key "+keyA+" org "+orgA+"\n\t\t}")

	// A message refused before it is read counts as a rejected message.
	rejected := `caddy_proofgate_didcomm_messages_total{direction="in",outcome="rejected",type="other"}`
	beforeRejected := metricValue(t, rejected)
	if d := do(t, http.MethodPost, "/didcomm", "hello", "Content-Type: text/plain"); d.status != http.StatusUnsupportedMediaType {
		t.Fatalf("text/plain: %d %s", d.status, d.body)
	}
	if got := metricValue(t, rejected) - beforeRejected; got != 1 {
		t.Errorf("%s grew by %v after a message of the wrong media type, want 1", rejected, got)
	}

	served := `caddy_proofgate_requests_total{backend="verifier",class="2xx",code="202",operation="didcomm"}`
	none := `caddy_proofgate_requests_total{backend="none",class="2xx",code="202",operation="didcomm"}`
	beforeServed, beforeNone := metricValue(t, served), metricValue(t, none)

	r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, strings.Replace(peBody, `"isShortenUrl":true`, `"isShortenUrl":false`, 1))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	data := r.json(t)["data"].(map[string]any)
	w := wallet.NewT(t, wallet.Options{})
	inv := w.ReadInvitation(data["invitationUrl"].(string))
	env := w.Present(inv, signedVP(t, w, inv), false)
	if d := do(t, http.MethodPost, "/didcomm", string(env), "Content-Type: application/didcomm-envelope-enc"); d.status != http.StatusAccepted {
		t.Fatalf("presentation: %d %s", d.status, d.body)
	}
	if gs, gn := metricValue(t, served)-beforeServed, metricValue(t, none)-beforeNone; gs != 1 {
		t.Errorf("%s grew by %v (and %s by %v), want the presentation counted under its backend", served, gs, none, gn)
	}
}

// TestEveryFieldProblemCounted: every 400 naming a field counts in
// validation_failures_total, also those answered outside the validator
// (the query's requestType given twice, a body that cannot be read, an
// emailId without an email block, an Idempotency-Key).
func TestEveryFieldProblemCounted(t *testing.T) {
	startCaddy(t, "")
	cases := []struct {
		field, path, body string
		headers           []string
	}{
		{"requestType", "/orgs/" + orgA + "/proofs/oob?requestType=indy&requestType=indy", indyBody, nil},
		{"emailId", oobPath(orgA, "indy"), strings.Replace(indyBody, "{", `{"emailId":["a@example.com"],`, 1), nil},
		{"Idempotency-Key", oobPath(orgA, "indy"), indyBody, []string{"Idempotency-Key: "}},
	}
	for _, tc := range cases {
		series := `caddy_proofgate_validation_failures_total{field="` + tc.field + `"}`
		before := metricValue(t, series)
		r := do(t, http.MethodPost, tc.path, tc.body, append([]string{"Content-Type: application/json", "X-API-Key: " + keyA}, tc.headers...)...)
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), tc.field) {
			t.Fatalf("%s: %d %s", tc.field, r.status, r.body)
		}
		if got := metricValue(t, series) - before; got != 1 {
			t.Errorf("%s grew by %v after a 400 about %s, want 1", series, got, tc.field)
		}
	}
}
