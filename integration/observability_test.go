package integration

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRequestLog: one info line per handled request on the logger
// http.handlers.proofgate.requests, with request id, operation, org,
// backend, status and duration, and no secret; passed-through requests
// get none. The Caddyfile routes the logger to a file of its own, as the
// README shows, with the changes logger beside it: the state change a
// create causes is on its line, not on one of its own.
func TestRequestLog(t *testing.T) {
	logPath := startWithRequestLog(t, "")

	created := postJSON(t, oobPath(orgA, "indy"), keyA, indyBody)
	if created.status != http.StatusCreated {
		t.Fatalf("create: %d %s", created.status, created.body)
	}
	do(t, http.MethodPost, oobPath(orgA, "indy"), indyBody, "Content-Type: application/json")
	postJSON(t, oobPath(orgA, "indy"), keyA, `{"isShortenUrl":1}`)
	postJSON(t, acceptPath("9b2c6f0e-1d3a-4c5b-8e7f-0a1b2c3d4e5f"), keyA, "")
	do(t, http.MethodGet, "/elsewhere", "")

	var lines []map[string]any
	deadline := time.Now().Add(5 * time.Second)
	for len(lines) < 4 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		b, _ := os.ReadFile(logPath)
		if strings.Contains(string(b), keyA) {
			t.Fatalf("the API key is in the request log:\n%s", b)
		}
		lines = nil
		for l := range strings.Lines(string(b)) {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("not a JSON line: %q", l)
			}
			lines = append(lines, m)
		}
	}
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4 (passed-through requests are not logged): %v", len(lines), lines)
	}
	want := []struct {
		status  float64
		backend string
	}{{201, "local"}, {401, ""}, {400, ""}, {404, ""}}
	for i, w := range want {
		l := lines[i]
		if l["logger"] != "http.handlers.proofgate.requests" || l["level"] != "info" || l["msg"] != "handled request" {
			t.Errorf("line %d: %v", i, l)
		}
		if l["status"] != w.status || l["backend"] != nilIfEmpty(w.backend) {
			t.Errorf("line %d: status %v backend %v, want %v %q", i, l["status"], l["backend"], w.status, w.backend)
		}
		if id, _ := l["request_id"].(string); len(id) != 36 {
			t.Errorf("line %d: request_id %v", i, l["request_id"])
		}
		if _, ok := l["duration"].(float64); !ok {
			t.Errorf("line %d: duration %v", i, l["duration"])
		}
	}
	if lines[0]["operation"] != "send_oob" || lines[0]["org"] != orgA || lines[3]["operation"] != "accept_presentation" ||
		lines[3]["proof_record_id"] != "9b2c6f0e-1d3a-4c5b-8e7f-0a1b2c3d4e5f" {
		t.Errorf("fields: %v / %v", lines[0], lines[3])
	}
	id := created.json(t)["data"].(map[string]any)["proofRecordId"]
	if _, prev := lines[0]["previous_state"]; lines[0]["proof_record_id"] != id || lines[0]["state"] != "request-sent" || prev {
		t.Errorf("the create's change on its line: %v (record %v)", lines[0], id)
	}
}

// TestRequestLogSampling: with request_log sampling, a real Caddy writes
// the first lines of each interval and then one in thereafter; the
// requests themselves are all answered.
func TestRequestLogSampling(t *testing.T) {
	logPath := startWithRequestLog(t, `request_log {
			sampling {
				interval 1h
				first 3
				thereafter 5
			}
		}`)

	// 3 first, then the 5th and 10th of the 10 after them.
	for i := range 13 {
		if got := do(t, http.MethodPost, oobPath(orgA, "indy"), indyBody, "Content-Type: application/json"); got.status != http.StatusUnauthorized {
			t.Fatalf("request %d: %d", i, got.status)
		}
	}
	want := 5
	var n int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(logPath)
		if n = strings.Count(string(b), `"msg":"handled request"`); n >= want {
			break
		}
	}
	time.Sleep(200 * time.Millisecond) // a line too many would show now
	b, _ := os.ReadFile(logPath)
	if n = strings.Count(string(b), `"msg":"handled request"`); n != want {
		t.Fatalf("%d lines for 13 requests, want %d:\n%s", n, want, b)
	}
}

// startWithRequestLog loads the proofgate site with extra in its block,
// its request log routed to a JSON file of its own (as the README shows),
// and returns the file's path.
func startWithRequestLog(t *testing.T, extra string) (logPath string) {
	t.Helper()
	dir := t.TempDir()
	logPath = filepath.Join(dir, "requests.log")
	tester := newTester(t)
	tester.InitServer(strings.Replace(globalOptions(dir), "{\n", `{
	log proofgate_requests {
		output file `+logPath+`
		format json
		include http.handlers.proofgate.requests http.handlers.proofgate.changes
	}
`, 1)+proofgateSite(extra), "caddyfile")
	settle(t)
	unloadAtEnd(t)
	return logPath
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// TestObservabilityMetrics: auth failures by reason, validation failures
// by field, requests by backend and status class.
func TestObservabilityMetrics(t *testing.T) {
	startCaddy(t, "")
	series := []string{
		`caddy_proofgate_auth_failures_total{reason="missing"}`,
		`caddy_proofgate_auth_failures_total{reason="invalid_api_key"}`,
		`caddy_proofgate_auth_failures_total{reason="forbidden"}`,
		`caddy_proofgate_validation_failures_total{field="isShortenUrl"}`,
		`caddy_proofgate_validation_failures_total{field="proofFormats"}`,
		`caddy_proofgate_requests_total{backend="local",class="2xx",code="201",operation="send_oob"}`,
		`caddy_proofgate_requests_total{backend="none",class="4xx",code="400",operation="send_oob"}`,
		`caddy_proofgate_outbox_depth{kind="mail"}`,
	}
	before := make([]float64, len(series))
	for i, s := range series {
		before[i] = metricValue(t, s)
	}
	do(t, http.MethodPost, oobPath(orgA, "indy"), indyBody, "Content-Type: application/json")
	postJSON(t, oobPath(orgA, "indy"), "not-a-key-0123456789abcdef", indyBody)
	postJSON(t, oobPath(orgB, "indy"), keyA, indyBody)
	postJSON(t, oobPath(orgA, "indy"), keyA, `{"isShortenUrl":"yes"}`)
	postJSON(t, oobPath(orgA, "indy"), keyA, indyBody)
	for i, delta := range []float64{1, 1, 1, 1, 1, 1, 1, 0} {
		if got := metricValue(t, series[i]) - before[i]; got != delta {
			t.Errorf("%s grew by %v, want %v", series[i], got, delta)
		}
	}
	if metricValue(t, `caddy_proofgate_request_duration_seconds_count{backend="local",operation="send_oob"}`) < 1 {
		t.Error("durations by backend not observed")
	}
}
