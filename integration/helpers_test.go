// Package integration drives a real Caddy with proofgate over real HTTP on
// loopback: Caddy runs in-process (caddytest) with file storage in a
// temporary directory.
package integration

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddytest"

	_ "github.com/proofgate/proofgate"
)

const (
	orgA     = "0f8fad5b-d9cb-469f-a165-70867728950e"
	orgB     = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	keyA     = "key-for-org-a-0123456789abcdef"
	keyB     = "key-for-org-b-0123456789abcdef"
	keyAll   = "key-for-every-org-0123456789ab"
	indyBody = `{"isShortenUrl":false,"comment":"over 18","proofFormats":{"indy":{"name":"age check","version":"1.0",
		"requested_attributes":{"attr1":{"name":"name","restrictions":[{"schema_id":"NcYxiDXkpYi6ov5FcYDi1e:2:gvt:1.0"}]}},
		"requested_predicates":{"pred1":{"name":"age","p_type":">=","p_value":18}}}}}`
	peBody = `{"isShortenUrl":true,"proofFormats":{},"presentationDefinition":{"id":"32f54163-7166-48f1-93d8-ff217bdb0653",
		"input_descriptors":[{"id":"citizenship","name":"EU Driver's License","purpose":"We need your license",
		"constraints":{"fields":[{"path":["$.credentialSubject.license"]}]}}]}}`
)

// globalOptions is the test servers' global block; storage is the data
// directory every config of one test shares.
func globalOptions(storage string) string {
	return `{
	admin ` + adminAddr + `
	http_port ` + httpPort + `
	https_port ` + httpsPort + `
	grace_period 1ns
	skip_install_trust
	storage file_system ` + storage + `
	log {
		output ` + testLogOutput + `
	}
}
`
}

// proofgateSite is a site with proofgate on the local backend and a
// respond after it, which proves that other paths pass through.
func proofgateSite(extra string) string {
	return `
` + base + ` {
	proofgate {
		backend local local {
			public_url ` + base + `
		}
		auth {
			api_key ` + keyA + ` org ` + orgA + ` label a
			api_key ` + keyB + ` org ` + orgB + `
			api_key ` + keyAll + ` org *
		}
		` + extra + `
	}
	respond "passed through" 200
}
`
}

// startCaddy loads a config with the local backend into the in-process
// Caddy and returns the data directory.
func startCaddy(t *testing.T, extra string) (*caddytest.Tester, string) {
	t.Helper()
	dir := t.TempDir()
	tester := newTester(t)
	tester.InitServer(globalOptions(dir)+proofgateSite(extra), "caddyfile")
	settle(t)
	unloadAtEnd(t)
	return tester, dir
}

// startSite loads a site whose proofgate block is block (its directives),
// with a respond after it, into the in-process Caddy, on a new data
// directory.
func startSite(t *testing.T, block string) {
	t.Helper()
	tester := newTester(t)
	tester.InitServer(globalOptions(t.TempDir())+"\n"+base+" {\n\tproofgate {\n"+block+"\n\t}\n\trespond \"passed through\" 200\n}\n", "caddyfile")
	settle(t)
	unloadAtEnd(t)
}

// unloadAtEnd stops the test's HTTP config (keeping the admin endpoint)
// before its temporary directories are removed: background work such as
// mail delivery must not write into a directory being deleted. Cleanups run
// last-in first-out, so this runs before the TempDir removals registered
// earlier.
func unloadAtEnd(t *testing.T) {
	t.Cleanup(func() {
		// What Caddy logs while stopping does not explain a failure.
		pauseLogs()
		if err := caddy.Load([]byte(idleConfig()), true); err != nil {
			t.Errorf("unloading the test config: %v", err)
		}
	})
}

// settle waits until the freshly loaded server and the admin endpoint
// (where tests read /metrics) answer. Caddy starts the new config before
// stopping the old one on the same listener, and replaces its admin server
// the same way; a connection the old one accepted in that instant is
// reset. Probing absorbs that instead of a test's first request.
func settle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, url := range []string{base + "/.settle", "http://" + adminAddr + "/metrics"} {
		for ok := 0; ok < 3; {
			resp, err := testClient.Get(url)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				ok++
				continue
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s did not settle: %v", url, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// testClient does not follow redirects (tests look at them) and keeps no
// idle connections: a config load closes the server's connections, and a
// POST on a stale kept-alive one would fail with EOF instead of being
// retried.
var testClient = &http.Client{
	Transport:     &http.Transport{DisableKeepAlives: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

// do sends one request. headers are "Name: value" strings.
func do(t *testing.T, method, path string, body string, headers ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ": ")
		req.Header.Set(name, value)
	}
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// postJSON posts a JSON body with an API key.
func postJSON(t *testing.T, path, key, body string) response {
	t.Helper()
	return do(t, http.MethodPost, path, body, "Content-Type: application/json", "Authorization: Bearer "+key)
}

func oobPath(org, requestType string) string {
	return "/orgs/" + org + "/proofs/oob?requestType=" + requestType
}

func acceptPath(id string) string { return "/proofs/" + id + "/accept-presentation" }

func wantBody(t *testing.T, r response, status int, body string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
	if body != "" && !bytes.Equal(bytes.TrimSpace(r.body), []byte(body)) {
		t.Fatalf("body\n%s\nwant\n%s", r.body, body)
	}
}
