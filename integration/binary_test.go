package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/auth/apikey"
)

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// caddyBinary builds cmd/caddy (what xcaddy would build) once per run.
func caddyBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "proofgate-bin")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "caddy")
		out, err := exec.Command("go", "build", "-o", binary, "../cmd/caddy").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// freePort returns a free TCP port on loopback other than those in
// avoid: the kernel may hand out a port again once its listener is
// closed, and two of a test's servers on one port answer each other's
// requests (a create that reached the admin endpoint, 404).
func freePort(t *testing.T, avoid ...int) int {
	t.Helper()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !slices.Contains(avoid, port) {
			return port
		}
	}
}

// exampleServer is the built binary running examples/Caddyfile.
type exampleServer struct {
	t    *testing.T
	cmd  *exec.Cmd
	url  string
	logs *lockedBuffer
	// admin is the admin endpoint's base URL; home holds autosave.json
	// (under caddy/).
	admin, home string
}

// runExample starts `caddy run --config ../examples/Caddyfile` with env,
// as the README tells a newcomer to, and waits until it serves.
func runExample(t *testing.T, port int, env ...string) *exampleServer {
	t.Helper()
	return runExampleFile(t, "../examples/Caddyfile", port, env...)
}

// runExampleFile is runExample with another example Caddyfile.
func runExampleFile(t *testing.T, file string, port int, env ...string) *exampleServer {
	t.Helper()
	admin := freePort(t, port)
	home := t.TempDir()
	cmd := exec.Command(caddyBinary(t), "run", "--config", file, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(),
		"CADDY_ADMIN=127.0.0.1:"+fmt.Sprint(admin),
		"HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home,
		fmt.Sprintf("PROOFGATE_ADDR=http://127.0.0.1:%d", port),
		fmt.Sprintf("PROOFGATE_PUBLIC_URL=http://127.0.0.1:%d", port),
	)
	cmd.Env = append(cmd.Env, env...)
	logs := new(lockedBuffer)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &exampleServer{t: t, cmd: cmd, url: fmt.Sprintf("http://127.0.0.1:%d", port), logs: logs,
		admin: fmt.Sprintf("http://127.0.0.1:%d", admin), home: home}
	t.Cleanup(s.stop)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := noKeepAlive.Get(s.url + "/")
		if err == nil {
			resp.Body.Close()
			return s
		}
		if time.Now().After(deadline) {
			s.stop()
			t.Fatalf("example did not start: %v\n%s", err, logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *exampleServer) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	stopProcess(s.cmd)
}

func (s *exampleServer) post(path, key, body string) (int, string) {
	s.t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, s.url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := noKeepAlive.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// noKeepAlive leaves no idle connection that would hold up a graceful stop.
var noKeepAlive = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

const (
	demoKey = "pg-demo-key-change-me-0123456789"
	demoOrg = "0f8fad5b-d9cb-469f-a165-70867728950e"
)

// TestExampleCaddyfileAndRestart runs the README's quick start with the
// example's defaults, then restarts the server on the same data directory:
// records and short URLs must survive.
func TestExampleCaddyfileAndRestart(t *testing.T) {
	data, port := t.TempDir(), freePort(t)
	s := runExample(t, port, "PROOFGATE_DATA="+data)
	status, body := s.post(oobPath(demoOrg, "indy"), demoKey, strings.Replace(indyBody, `"isShortenUrl":false`, `"isShortenUrl":true`, 1))
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s\n%s", status, body, s.logs)
	}
	id := between(body, `"proofRecordId":"`, `"`)
	short := between(body, `"invitationUrl":"`, `"`)
	if id == "" || !strings.HasPrefix(short, s.url+"/url/") {
		t.Fatalf("body %s", body)
	}
	if status, _ := s.post("/other", demoKey, "{}"); status != http.StatusNotFound {
		t.Fatalf("other paths must reach the respond after proofgate: %d", status)
	}
	s.stop()

	receivePresentation(t, data, id)
	s = runExample(t, port, "PROOFGATE_DATA="+data)
	resp, err := noKeepAlive.Get(short)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Query().Get("oob") == "" {
		t.Fatalf("short URL after restart did not redirect to the invitation: %s", resp.Request.URL)
	}
	if status, body := s.post(acceptPath(id), demoKey, ""); status != http.StatusOK || !strings.Contains(body, `"state":"done"`) {
		t.Fatalf("accept after restart: %d %s", status, body)
	}
}

// TestHashKeyCommand checks `caddy proofgate hash-key` and that its output
// works as a configured key.
func TestHashKeyCommand(t *testing.T) {
	const key = "a-team-key-from-a-vault-0123456789"
	out, err := exec.Command(caddyBinary(t), "proofgate", "hash-key", "--plaintext", key).Output()
	if err != nil {
		t.Fatal(err)
	}
	digest := strings.TrimSpace(string(out))
	if digest != apikey.Digest(key) {
		t.Fatalf("hash-key printed %q, want %q", digest, apikey.Digest(key))
	}
	cmd := exec.Command(caddyBinary(t), "proofgate", "hash-key")
	cmd.Stdin = strings.NewReader(key + "\n")
	if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != digest {
		t.Fatalf("from stdin: %q %v", out, err)
	}

	s := runExample(t, freePort(t), "PROOFGATE_DATA="+t.TempDir(), "PROOFGATE_API_KEY="+digest)
	if status, body := s.post(oobPath(demoOrg, "indy"), key, indyBody); status != http.StatusCreated {
		t.Fatalf("with the digest configured, the plaintext key must work: %d %s", status, body)
	}
	if status, _ := s.post(oobPath(demoOrg, "indy"), digest, indyBody); status != http.StatusUnauthorized {
		t.Fatalf("the digest itself must not work as a key: %d", status)
	}
}

func between(s, start, end string) string {
	_, rest, ok := strings.Cut(s, start)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, end)
	return v
}

// stopProcess stops a Caddy started by a test: SIGINT (a graceful stop),
// then SIGKILL after 15 s.
func stopProcess(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// TestSecondProcessOnOneDataDirIsRefused: a single instance keeps its
// records in a journal only it may append to; a second process started on
// the same data directory without cluster refuses to start, and says why,
// rather than keep records the first cannot see.
func TestSecondProcessOnOneDataDirIsRefused(t *testing.T) {
	data := t.TempDir()
	runExample(t, freePort(t), "PROOFGATE_DATA="+data)

	port := freePort(t)
	admin, home := freePort(t, port), t.TempDir()
	cmd := exec.Command(caddyBinary(t), "run", "--config", "../examples/Caddyfile", "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "CADDY_ADMIN=127.0.0.1:"+fmt.Sprint(admin),
		"HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home, "PROOFGATE_DATA="+data,
		fmt.Sprintf("PROOFGATE_ADDR=http://127.0.0.1:%d", port), fmt.Sprintf("PROOFGATE_PUBLIC_URL=http://127.0.0.1:%d", port))
	done := make(chan struct{})
	var out []byte
	go func() { out, _ = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the second process started")
	}
	if cmd.ProcessState.Success() || !bytes.Contains(out, []byte("instances that share a storage must all set cluster")) {
		t.Fatalf("exit %v, logs:\n%s", cmd.ProcessState, out)
	}
}

// lockedBuffer collects a child process's output, which its copying
// goroutine writes while a test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
