package acapy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mr-tron/base58"

	"github.com/proofgate/proofgate/internal/testenv/proc"
)

// Agent is a running ACA-Py process, owned by the test that started it.
type Agent struct {
	// AdminURL is the admin API base, e.g. "http://127.0.0.1:41235" (no trailing slash).
	AdminURL string
	// Endpoint is the public DIDComm endpoint (inbound HTTP transport) that
	// invitations carry as serviceEndpoint, e.g. "http://127.0.0.1:41234".
	Endpoint string
	// APIKey is the admin API key to send as X-API-Key; empty with InsecureAdmin.
	APIKey string
	// JWTSecret signs the per-wallet tokens in multitenant mode; empty otherwise.
	JWTSecret string
	// Label is the agent's random label; the harness checks it on /status so
	// that a stray process on a reused port is never mistaken for this one.
	Label string
	// Version is what the agent reports on GET /status, e.g. "0.12.8".
	Version string
	// WalletType is the base wallet type: always "askar" (a throw-away
	// SQLite wallet in the agent's home): acapy-agent 1.x has no other, and
	// 0.12.x has it too.
	WalletType string
	// Multitenant tells whether the agent was started with Multitenant().
	Multitenant bool
	// Client is an HTTP client for the admin API with a per-request timeout.
	Client *http.Client

	// StartupTime is how long the agent took to answer ready.
	StartupTime time.Duration

	logs    *proc.Tail
	secrets []string // redacted from logged output
	stop    func()   // kills the process group and waits for it
}

type config struct {
	legacy        bool
	multitenant   bool
	insecureAdmin bool
	askar         bool
	extraArgs     []string
	startTimeout  time.Duration
}

// Option changes how Start runs the agent.
type Option func(*config)

// Multitenant starts the agent with --multitenant --multitenant-admin and a
// random --jwt-secret. Wallets come from Agent.CreateWallet; tenant calls
// then need the API key and "Authorization: Bearer <wallet token>", and the
// base wallet's key alone gets 401 on tenant routes.
func Multitenant() Option { return func(c *config) { c.multitenant = true } }

// Legacy runs the optional second target, aries-cloudagent 0.12.x (end
// of life), from $PROOFGATE_ACAPY_0_12 (`bash .ci/acapy-venv.sh 0.12`
// prints it); the test is skipped when it is not set.
func Legacy() Option { return func(c *config) { c.legacy = true } }

// InsecureAdmin starts the admin API with --admin-insecure-mode (no API key).
func InsecureAdmin() Option { return func(c *config) { c.insecureAdmin = true } }

// AskarWallet is kept for callers written when the default was ACA-Py
// 0.12's in-memory "basic" wallet; every agent now has an Askar (SQLite)
// wallet, and in multitenant mode Askar sub-wallets.
func AskarWallet() Option { return func(c *config) { c.askar = true } }

// ExtraArgs appends flags to `aca-py start`, e.g. "--auto-verify-presentation".
func ExtraArgs(args ...string) Option {
	return func(c *config) { c.extraArgs = append(c.extraArgs, args...) }
}

// StartTimeout bounds how long Start waits for the agent to be ready
// (default 90s: it needs ~2.5s alone, far more on a loaded 2-core machine).
func StartTimeout(d time.Duration) Option { return func(c *config) { c.startTimeout = d } }

// errPortTaken marks a start that lost a race for one of its ports; Start retries it.
var errPortTaken = errors.New("port already in use")

// Start runs a fresh agent for t and stops it when t ends. It skips the test
// when ACA-Py is not installed (fails under CI), and fails it when the agent
// does not come up; the agent's output is logged if the test fails.
func Start(t testing.TB, opts ...Option) *Agent {
	t.Helper()
	cfg := newConfig(opts)
	exe := cfg.executable(t)
	a, err := launch(exe, cfg, func() (string, error) { return t.TempDir(), nil })
	if err != nil {
		t.Fatalf("starting ACA-Py (%s): %v", exe, err)
	}
	t.Cleanup(func() {
		a.stop()
		if t.Failed() {
			t.Logf("ACA-Py %s output:\n%s", a.AdminURL, a.Logs())
		}
	})
	t.Logf("ACA-Py %s ready in %v: admin %s, endpoint %s", a.Version, a.StartupTime.Round(time.Millisecond), a.AdminURL, a.Endpoint)
	return a
}

func newConfig(opts []Option) config {
	cfg := config{startTimeout: 90 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// launch starts an agent, retrying when it lost a race for its ports. mkHome
// gives each attempt a fresh ACAPY_HOME.
func launch(exe string, cfg config, mkHome func() (string, error)) (*Agent, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var home string
		if home, err = mkHome(); err != nil {
			return nil, err
		}
		var a *Agent
		if a, err = launchOnce(exe, cfg, home); err == nil {
			return a, nil
		}
		if !errors.Is(err, errPortTaken) {
			break
		}
	}
	return nil, err
}

func launchOnce(exe string, cfg config, home string) (*Agent, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	a := &Agent{
		Endpoint:    "http://127.0.0.1:" + strconv.Itoa(ports[0]),
		AdminURL:    "http://127.0.0.1:" + strconv.Itoa(ports[1]),
		Label:       "proofgate-test-" + randomHex(6),
		Multitenant: cfg.multitenant,
		WalletType:  "askar",
		Client:      &http.Client{Timeout: 30 * time.Second},
		logs:        &proc.Tail{},
	}
	args := []string{"start",
		"--no-ledger",
		"--label", a.Label,
		"--inbound-transport", "http", "127.0.0.1", strconv.Itoa(ports[0]),
		"--outbound-transport", "http",
		"--endpoint", a.Endpoint,
		"--admin", "127.0.0.1", strconv.Itoa(ports[1]),
		"--auto-provision",
	}
	if cfg.insecureAdmin {
		args = append(args, "--admin-insecure-mode")
	} else {
		a.APIKey = randomHex(24)
		args = append(args, "--admin-api-key", a.APIKey)
	}
	// A RAW key skips the Argon2 derivation, which costs seconds per open.
	walletKey := base58.Encode(randomBytes(32))
	args = append(args, "--wallet-type", "askar", "--wallet-name", "proofgate-test",
		"--wallet-key", walletKey, "--wallet-key-derivation-method", "RAW")
	if cfg.multitenant {
		a.JWTSecret = randomHex(32)
		args = append(args, "--multitenant", "--multitenant-admin", "--jwt-secret", a.JWTSecret)
	}
	args = append(args, cfg.extraArgs...)
	a.secrets = []string{a.APIKey, a.JWTSecret, walletKey}

	cmd := exec.Command(exe, args...)
	cmd.Env = agentEnv(home)
	cmd.Dir = home
	cmd.Stdout = a.logs
	cmd.Stderr = a.logs
	cmd.WaitDelay = 5 * time.Second
	began := time.Now()
	run, err := proc.Start(cmd)
	if err != nil {
		return nil, err
	}
	a.stop = run.Stop

	if err := a.waitReady(cfg.startTimeout, run.Exited()); err != nil {
		a.stop()
		out := a.Logs()
		if errors.Is(err, errPortTaken) || strings.Contains(out, "ddress already in use") {
			return nil, fmt.Errorf("%w: %v", errPortTaken, err)
		}
		if waitErr := run.Err(); waitErr != nil {
			err = fmt.Errorf("%v (%v)", err, waitErr)
		}
		return nil, fmt.Errorf("%v; agent output:\n%s", err, tail(out, 8<<10))
	}
	a.StartupTime = time.Since(began)
	return a, nil
}

// waitReady polls GET /status/ready until it says ready, then checks on
// GET /status that the process answering is this agent (by label).
func (a *Agent) waitReady(timeout time.Duration, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		var ready struct {
			Ready bool `json:"ready"`
		}
		status, body, err := a.Do(ctx, http.MethodGet, "/status/ready", "", nil)
		if err == nil && status == http.StatusOK && json.Unmarshal(body, &ready) == nil && ready.Ready {
			break
		}
		select {
		case <-exited:
			return errors.New("aca-py exited before it was ready")
		case <-ctx.Done():
			return fmt.Errorf("not ready after %v (last: status %d, %v)", timeout, status, err)
		case <-tick.C:
		}
	}
	status, body, err := a.Do(ctx, http.MethodGet, "/status", "", nil)
	if err != nil || status != http.StatusOK {
		return fmt.Errorf("GET /status: status %d, %v", status, err)
	}
	var st struct {
		Version string `json:"version"`
		Label   string `json:"label"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		return fmt.Errorf("GET /status: %v", err)
	}
	if st.Label != a.Label {
		return fmt.Errorf("%w: another agent (label %q) answers on %s", errPortTaken, st.Label, a.AdminURL)
	}
	a.Version = st.Version
	return nil
}

// agentEnv is the test's environment without ACAPY_* variables (ACA-Py reads
// every flag from them, so a developer's settings would change the agent),
// plus ACAPY_HOME in the test's temporary directory so that nothing is
// written under ~/.aries_cloudagent.
func agentEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ACAPY_") {
			env = append(env, kv)
		}
	}
	return append(env, "ACAPY_HOME="+home, "PYTHONUNBUFFERED=1", "PYTHONDONTWRITEBYTECODE=1")
}

// freePorts reserves n distinct loopback ports by listening on them, then
// releases them for the agent. Another process may take one in between;
// Start retries when that happens.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Logs returns the agent's output so far (the last 256 KiB), secrets redacted.
func (a *Agent) Logs() string { return a.logs.String(a.secrets...) }

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := io.ReadFull(rand.Reader, b); err != nil {
		panic(err)
	}
	return b
}

func randomHex(n int) string { return hex.EncodeToString(randomBytes(n)) }

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
