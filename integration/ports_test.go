package integration

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddytest"

	acapyenv "github.com/proofgate/proofgate/internal/testenv/acapy"
)

// The ports of this test binary's Caddy, chosen free at start so that two
// runs on one machine (two clones, two CI jobs) cannot collide.
var (
	httpPort, httpsPort, adminPort string
	adminAddr                      string
	base                           string
)

func TestMain(m *testing.M) {
	ports, err := freePorts(3)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration: no free loopback ports:", err)
		os.Exit(1)
	}
	httpPort, httpsPort, adminPort = ports[0], ports[1], ports[2]
	adminAddr = "localhost:" + adminPort
	base = "http://localhost:" + httpPort
	// Start the in-process Caddy here, on the free admin port and with its
	// log going to the running test (logs_test.go), rather than letting
	// caddytest start it with its log on stderr.
	if err := caddy.Load([]byte(idleConfig()), true); err != nil {
		fmt.Fprintln(os.Stderr, "integration: starting Caddy:", err)
		os.Exit(1)
	}
	// The standard logger too (caddytest's timings, libraries).
	log.SetOutput(sinkWriter{})
	// acapy.Main stops the ACA-Py agents the tests share (acapy.Shared).
	os.Exit(acapyenv.Main(m))
}

// idleConfig is the config between tests: the admin endpoint only.
func idleConfig() string {
	return `{"admin":{"listen":"` + adminAddr + `"},"logging":` + testLogJSON + `}`
}

// newTester is caddytest.NewTester on this binary's admin port. Caddy's
// log lines go to the test from now on, printed only if it fails.
func newTester(t *testing.T) *caddytest.Tester {
	t.Helper()
	captureLogs(t)
	p, _ := strconv.Atoi(adminPort)
	return caddytest.NewTester(quietT{t}).WithDefaultOverrides(caddytest.Config{AdminPort: p})
}

// quietT leaves out caddytest's dump of the whole running config when a
// test fails (hundreds of lines); the config is in the test's source, and
// Caddy's log lines that explain the failure are printed instead.
type quietT struct{ testing.TB }

func (q quietT) Logf(format string, args ...any) {
	q.TB.Helper()
	if strings.HasPrefix(format, "----------- failed with config") {
		return
	}
	q.TB.Logf(format, args...)
}

// assertLoadError loads config into this binary's Caddy and wants it
// refused with an error containing want. (caddytest.AssertLoadError would
// use its fixed admin port 2999.)
func assertLoadError(t *testing.T, config, adapter, want string) {
	t.Helper()
	captureLogs(t)
	req, err := http.NewRequest(http.MethodPost, "http://"+adminAddr+"/load", strings.NewReader(config))
	if err != nil {
		t.Fatal(err)
	}
	if adapter == "json" {
		req.Header.Set("Content-Type", "application/json")
	} else {
		req.Header.Set("Content-Type", "text/"+adapter)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("loading the config: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		t.Fatalf("config loaded; want it refused with %q", want)
	}
	if !strings.Contains(string(body), want) {
		t.Fatalf("load error %s\nwant it to contain %q", body, want)
	}
}

// freePorts asks the kernel for n distinct free TCP ports on loopback. They
// are released before Caddy binds them; the window is small, and the kernel
// does not hand out a just-released ephemeral port again at once.
func freePorts(n int) ([]string, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	}
	return ports, nil
}

// TestNoFixedPorts keeps caddytest's fixed-port entry points out of this
// package: they would bind admin port 2999 and collide with another run.
func TestNoFixedPorts(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	banned := []string{"caddytest." + "AssertLoadError(", "caddytest." + "NewTester(", "caddytest." + "Default"}
	for _, f := range files {
		if f == "ports_test.go" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range banned {
			if strings.Contains(string(b), s) {
				t.Errorf("%s uses %s…: use newTester / assertLoadError, which take this run's free ports", f, s)
			}
		}
	}
}
