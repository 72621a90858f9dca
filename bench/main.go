// Command bench measures proofgate beside plain Caddy in one run: the same
// in-process Caddy serves a bare respond, a reverse_proxy to a loopback
// upstream, and proofgate's routes, and each is loaded by the same client.
// It prints requests per second and each route's cost relative to respond.
//
//	go run ./bench [-n 3000] [-c 8]
//
// Everything listens on 127.0.0.1 only; the run is bounded by -n requests
// per route.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/proofgate/proofgate"
)

const (
	key = "bench-key-0123456789abcdef"
	org = "0f8fad5b-d9cb-469f-a165-70867728950e"
)

type target struct {
	name   string
	method string
	path   string
	body   string
	status int
}

func main() {
	n := flag.Int("n", 3000, "requests per route")
	c := flag.Int("c", 8, "concurrent clients")
	flag.Parse()
	if err := run(*n, *c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(n, c int) error {
	upstream, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() {
		_ = http.Serve(upstream, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	}()
	port, err := freePort()
	if err != nil {
		return err
	}
	data, err := os.MkdirTemp("", "proofgate-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(data)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)

	caddyfile := fmt.Sprintf(`{
	admin off
	storage file_system %s
	log {
		level ERROR
	}
}
%s {
	handle /respond {
		respond "ok"
	}
	handle /proxy {
		reverse_proxy %s
	}
	handle {
		proofgate {
			backend local local {
				public_url %s
			}
			auth {
				api_key %s org %s
			}
		}
		respond "passed through"
	}
}
`, data, base, upstream.Addr(), base, key, org)
	cfg, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), nil)
	if err != nil {
		return err
	}
	if err := caddy.Load(cfg, true); err != nil {
		return err
	}
	defer func() { _ = caddy.Stop() }()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c}, Timeout: 10 * time.Second}
	shortPath, err := makeShortURL(client, base)
	if err != nil {
		return err
	}
	indy := `{"isShortenUrl":false,"proofFormats":{"indy":{"name":"age","version":"1.0","requested_attributes":{"a":{"name":"name"}},"requested_predicates":{"p":{"name":"age","p_type":">=","p_value":18}}}}}`
	targets := []target{
		{"caddy respond", "GET", "/respond", "", 200},
		{"caddy reverse_proxy", "GET", "/proxy", "", 200},
		{"proofgate pass-through", "GET", "/elsewhere", "", 200},
		{"proofgate 401 (no key)", "POST", "/orgs/" + org + "/proofs/oob?requestType=indy", indy, 401},
		{"proofgate 400 (validation)", "POST", "/orgs/" + org + "/proofs/oob?requestType=indy", `{"isShortenUrl":1,"proofFormats":{"indy":{}}}`, 400},
		{"proofgate short URL (storage read)", "GET", shortPath, "", 200},
		{"proofgate 201 indy (storage write)", "POST", "/orgs/" + org + "/proofs/oob?requestType=indy", indy, 201},
	}
	fmt.Printf("%d requests per route, %d concurrent clients, loopback\n\n", n, c)
	fmt.Printf("%-38s %10s %10s %10s %8s\n", "route", "req/s", "p50", "p99", "vs respond")
	var baseline float64
	for i, t := range targets {
		// Warm up connections and caches so the order of routes does not
		// bias the numbers.
		if _, _, _, err := load(client, base, t, max(n/10, c), c); err != nil {
			return fmt.Errorf("%s: %v", t.name, err)
		}
		rps, p50, p99, err := load(client, base, t, n, c)
		if err != nil {
			return fmt.Errorf("%s: %v", t.name, err)
		}
		if i == 0 {
			baseline = rps
		}
		fmt.Printf("%-38s %10.0f %10s %10s %7.2fx\n", t.name, rps, p50.Round(time.Microsecond), p99.Round(time.Microsecond), baseline/rps)
	}
	return nil
}

// load sends n requests with c workers and returns throughput and latency
// percentiles; any unexpected status is an error.
func load(client *http.Client, base string, t target, n, c int) (float64, time.Duration, time.Duration, error) {
	var next atomic.Int64
	lat := make([]time.Duration, n)
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range c {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				req, _ := http.NewRequest(t.method, base+t.path, strings.NewReader(t.body))
				if t.body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				if t.status != 401 {
					req.Header.Set("X-API-Key", key)
				}
				req.Header.Set("Accept", "application/json")
				s := time.Now()
				resp, err := client.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != t.status {
						err = fmt.Errorf("status %d, want %d", resp.StatusCode, t.status)
					}
				}
				lat[i] = time.Since(s)
				if err != nil {
					once.Do(func() { firstErr = err })
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return 0, 0, 0, firstErr
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return float64(n) / elapsed.Seconds(), lat[n/2], lat[n*99/100], nil
}

func makeShortURL(client *http.Client, base string) (string, error) {
	body := `{"isShortenUrl":true,"proofFormats":{},"presentationDefinition":{"input_descriptors":[{"id":"a","constraints":{"fields":[{"path":["$.type"]}]}}]}}`
	req, _ := http.NewRequest("POST", base+"/orgs/"+org+"/proofs/oob?requestType=presentationExchange", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", key)
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 201 {
		return "", fmt.Errorf("creating a short URL: %d %s", resp.StatusCode, b)
	}
	_, rest, _ := bytes.Cut(b, []byte(`"invitationUrl":"`))
	u, _, _ := bytes.Cut(rest, []byte(`"`))
	return strings.TrimPrefix(string(u), base), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
