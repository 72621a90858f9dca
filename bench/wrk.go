package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// findWrk returns wrk's path, installing Debian's package first when it
// is missing and this is a root shell with apt-get. "" means none.
func findWrk(logf func(string, ...any)) string {
	if p, err := exec.LookPath("wrk"); err == nil {
		return p
	}
	if _, err := exec.LookPath("apt-get"); err != nil || os.Geteuid() != 0 {
		return ""
	}
	logf("wrk is missing: apt-get install -y wrk")
	cmd := exec.Command("apt-get", "install", "-y", "-q", "wrk")
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if out, err := cmd.CombinedOutput(); err != nil {
		logf("installing wrk failed (%v); using the Go client\n%s", err, lastLines(out, 5))
		return ""
	}
	p, _ := exec.LookPath("wrk")
	return p
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// wrkScript is the Lua that sets the request and prints wrk's summary as
// JSON. wrk counts statuses above 399 as errors.status; nothing runs per
// response, so the request costs wrk as little as it can.
func wrkScript(t target) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wrk.method = %q\n", t.Method)
	if t.Body != "" {
		fmt.Fprintf(&b, "wrk.body = [==[%s]==]\n", t.Body)
	}
	for k, v := range t.Header {
		fmt.Fprintf(&b, "wrk.headers[%q] = %q\n", k, v)
	}
	b.WriteString(`done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('BENCHJSON {"requests":%d,"duration_us":%d,"status_errors":%d,"socket_errors":%d,"p50_us":%d,"p99_us":%d}\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`)
	return b.String()
}

// wrkRun loads t with wrk for d (whole seconds, at least one).
func wrkRun(wrk, dir string, t target, conns int, d time.Duration) (result, error) {
	script := filepath.Join(dir, "wrk-"+t.Name+".lua")
	if err := os.WriteFile(script, []byte(wrkScript(t)), 0o600); err != nil {
		return result{}, err
	}
	secs := max(1, int(math.Ceil(d.Seconds())))
	cmd := exec.Command(wrk, "-t1", fmt.Sprintf("-c%d", conns), fmt.Sprintf("-d%ds", secs), "--timeout", "10s", "-s", script, t.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return result{}, fmt.Errorf("wrk: %v\n%s", err, out)
	}
	_, line, ok := bytes.Cut(out, []byte("BENCHJSON "))
	if !ok {
		return result{}, fmt.Errorf("wrk printed no summary:\n%s", out)
	}
	line, _, _ = bytes.Cut(line, []byte("\n"))
	var s struct {
		Requests     int64   `json:"requests"`
		DurationUS   float64 `json:"duration_us"`
		StatusErrors int64   `json:"status_errors"`
		SocketErrors int64   `json:"socket_errors"`
		P50          float64 `json:"p50_us"`
		P99          float64 `json:"p99_us"`
	}
	if err := json.Unmarshal(line, &s); err != nil {
		return result{}, fmt.Errorf("wrk summary %q: %v", line, err)
	}
	res := result{Requests: s.Requests, Seconds: s.DurationUS / 1e6, P50us: s.P50, P99us: s.P99, Errors: s.SocketErrors}
	// The status of every answer was checked before the run; here only
	// its class can be: all errors for a 4xx target, none otherwise.
	if t.Status >= 400 {
		res.Errors += s.Requests - s.StatusErrors
	} else {
		res.Errors += s.StatusErrors
	}
	if res.Errors > 0 {
		res.FirstError = fmt.Sprintf("%d answers of the wrong status class or socket errors", res.Errors)
	}
	return res, nil
}
