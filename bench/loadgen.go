package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// target is one thing measured: an HTTP request repeated, a flow of
// requests, or the durable-write ceiling.
type target struct {
	Name   string            `json:"name"`
	Label  string            `json:"label"`
	Method string            `json:"method,omitempty"`
	URL    string            `json:"url,omitempty"`
	Header map[string]string `json:"header,omitempty"`
	Body   string            `json:"body,omitempty"`
	Status int               `json:"status,omitempty"`
	// Flow names a multi-request iteration the Go client runs
	// ("local_accept"); wrk cannot chain requests.
	Flow string `json:"flow,omitempty"`
	// Durable marks the durable-write ceiling, measured in-process.
	Durable bool `json:"durable,omitempty"`
	// Base is the site's base URL, for flows.
	Base string `json:"base,omitempty"`
}

// result is one measurement.
type result struct {
	Requests   int64   `json:"requests"`
	Errors     int64   `json:"errors"`
	Seconds    float64 `json:"seconds"`
	P50us      float64 `json:"p50_us"`
	P99us      float64 `json:"p99_us"`
	FirstError string  `json:"first_error,omitempty"`
	// ServerCPUus is the server's CPU time per request (user + system):
	// unlike req/s, it hardly moves with what else runs on the machine.
	ServerCPUus float64 `json:"server_cpu_us_per_request,omitempty"`
	// StubCPUus is the stub agent's CPU time per request: the machine's
	// CPU it takes from the server and the load generator.
	StubCPUus float64 `json:"stub_cpu_us_per_request,omitempty"`
}

func (r result) rps() float64 {
	if r.Seconds == 0 {
		return 0
	}
	return float64(r.Requests) / r.Seconds
}

// loadSpec is what the orchestrator hands a Go load process.
type loadSpec struct {
	Target   target        `json:"target"`
	Conns    int           `json:"conns"`
	Warmup   time.Duration `json:"warmup"`
	Duration time.Duration `json:"duration"`
}

// loadRole is the Go load generator: a separate process with a fixed
// number of connections, each a worker sending its next request when the
// last is answered. It reads a loadSpec (JSON) from args[0] and prints a
// result (JSON).
func loadRole(args []string) error {
	if len(args) != 1 {
		return errors.New("load: want a JSON spec")
	}
	var spec loadSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		return err
	}
	client := &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: spec.Conns, MaxConnsPerHost: spec.Conns, DisableCompression: true},
		Timeout:   30 * time.Second,
		// Short URLs answer browsers with a 302: measure that answer.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	do := requester(client, spec.Target)
	if spec.Warmup > 0 {
		runFor(do, spec.Conns, spec.Warmup)
	}
	res := runFor(do, spec.Conns, spec.Duration)
	return json.NewEncoder(os.Stdout).Encode(res)
}

// requester returns one iteration of t.
func requester(client *http.Client, t target) func() error {
	if t.Flow == "local_accept" {
		f := newFlow(client, t)
		return f.run
	}
	return func() error {
		return send(client, t.Method, t.URL, t.Header, t.Body, t.Status, nil)
	}
}

// send makes one request and checks its status; out, if not nil, gets the
// body.
func send(client *http.Client, method, url string, header map[string]string, body string, status int, out *[]byte) error {
	req, err := newRequest(method, url, header, body)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out != nil {
		*out, err = io.ReadAll(resp.Body)
	} else {
		_, err = io.Copy(io.Discard, resp.Body)
	}
	if err != nil {
		return err
	}
	if resp.StatusCode != status {
		b := ""
		if out != nil {
			b = string(*out)
		}
		return fmt.Errorf("%s %s: status %d, want %d %s", method, url, resp.StatusCode, status, b)
	}
	return nil
}

// newRequest builds a request with header and body (none when empty).
func newRequest(method, url string, header map[string]string, body string) (*http.Request, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return req, nil
}

// runFor runs do on conns workers for d and measures it.
func runFor(do func() error, conns int, d time.Duration) result {
	var (
		errs     atomic.Int64
		firstErr atomic.Value
		wg       sync.WaitGroup
	)
	lats := make([][]time.Duration, conns)
	start := time.Now()
	deadline := start.Add(d)
	for i := range conns {
		wg.Go(func() {
			lat := make([]time.Duration, 0, 4096)
			for {
				s := time.Now()
				if !s.Before(deadline) {
					break
				}
				if err := do(); err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					time.Sleep(time.Millisecond) // a dead server must not spin the client
					continue
				}
				lat = append(lat, time.Since(s))
			}
			lats[i] = lat
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	all := slices.Concat(lats...)
	slices.Sort(all)
	res := result{Requests: int64(len(all)), Errors: errs.Load(), Seconds: elapsed.Seconds()}
	if s, ok := firstErr.Load().(string); ok {
		res.FirstError = s
	}
	if n := len(all); n > 0 {
		res.P50us = float64(all[n/2]) / 1e3
		res.P99us = float64(all[min(n-1, n*99/100)]) / 1e3
	}
	return res
}
