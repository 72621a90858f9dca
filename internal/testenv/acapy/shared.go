package acapy

import (
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Agents shared by the tests of one test binary, one per option set.
var shared struct {
	mu     sync.Mutex
	inMain bool
	agents map[string]*sharedAgent
	dirs   []string
}

type sharedAgent struct {
	once sync.Once
	a    *Agent
	err  error
}

// Main runs the tests and then stops the agents Shared started. Call it from
// the package's TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(acapy.Main(m)) }
func Main(m *testing.M) int {
	shared.mu.Lock()
	shared.inMain = true
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	for _, s := range shared.agents {
		if s.a != nil {
			s.a.stop()
		}
	}
	for _, d := range shared.dirs {
		os.RemoveAll(d)
	}
	shared.agents, shared.dirs = nil, nil
	return code
}

// Shared returns an agent that all tests of the binary calling it with the
// same options share; it starts on first use (ACA-Py needs ~2.5s to start on
// an idle machine and over 10s when several start at once on 2 cores) and
// stops after the last test, so TestMain must call Main. Tests sharing an
// agent see each other's records: with Multitenant, give each test its own
// wallet (CreateWallet). Skips and failures are as for Start; the agent's
// output is logged to every failing test that used it.
func Shared(t testing.TB, opts ...Option) *Agent {
	t.Helper()
	cfg := newConfig(opts)
	exe := cfg.executable(t)
	shared.mu.Lock()
	if !shared.inMain {
		shared.mu.Unlock()
		t.Fatal("acapy.Shared needs the package's TestMain to run the tests with acapy.Main(m)")
	}
	if shared.agents == nil {
		shared.agents = map[string]*sharedAgent{}
	}
	key := cfg.key()
	s := shared.agents[key]
	if s == nil {
		s = &sharedAgent{}
		shared.agents[key] = s
	}
	shared.mu.Unlock()

	s.once.Do(func() {
		s.a, s.err = launch(exe, cfg, func() (string, error) {
			d, err := os.MkdirTemp("", "proofgate-acapy-")
			if err == nil {
				shared.mu.Lock()
				shared.dirs = append(shared.dirs, d)
				shared.mu.Unlock()
			}
			return d, err
		})
		if s.err == nil {
			t.Logf("shared ACA-Py %s ready in %v: admin %s, endpoint %s", s.a.Version, s.a.StartupTime, s.a.AdminURL, s.a.Endpoint)
		}
	})
	if s.err != nil {
		t.Fatalf("starting shared ACA-Py (%s): %v", exe, s.err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("shared ACA-Py %s output:\n%s", s.a.AdminURL, s.a.Logs())
		}
	})
	return s.a
}

// key identifies an option set; the start timeout does not change the agent.
func (c config) key() string {
	flags := []string{"legacy=" + boolStr(c.legacy), "mt=" + boolStr(c.multitenant), "insecure=" + boolStr(c.insecureAdmin), "askar=" + boolStr(c.askar)}
	return strings.Join(slices.Concat(flags, c.extraArgs), "\x00")
}

func boolStr(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
