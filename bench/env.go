package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/proofgate/proofgate/internal/proofs"
	"github.com/proofgate/proofgate/internal/recordlog"
)

// child is a process the bench started.
type child struct {
	name string
	cmd  *exec.Cmd
}

func (c *child) stop() {
	if c == nil || c.cmd.Process == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// start re-executes this program in role with args, its output to logPath.
func start(role, logPath string, args ...string) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, append([]string{"-role", role}, args...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	go func() { _ = cmd.Wait(); logFile.Close() }()
	return &child{name: role, cmd: cmd}, nil
}

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

func waitPort(port int, timeout time.Duration, exited func() bool) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if exited() {
			return errors.New("the process exited")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("nothing listens on port %d after %s", port, timeout)
}

// env is a running server and stub agent with their data.
type env struct {
	root, data string
	ports      ports
	server     *child
	stubAgent  *child
	logf       func(string, ...any)
}

func (e *env) close(keep bool) {
	e.server.stop()
	e.stubAgent.stop()
	if !keep {
		_ = os.RemoveAll(e.root)
	} else {
		e.logf("kept %s", e.root)
	}
}

func startEnv(dir, admin, requestLog string, logf func(string, ...any)) (*env, error) {
	root, err := os.MkdirTemp(dir, "proofgate-bench-")
	if err != nil {
		return nil, err
	}
	e := &env{root: root, data: filepath.Join(root, "data"), logf: logf}
	ps, err := freePorts(8)
	if err != nil {
		return e, err
	}
	e.ports = ports{respond: ps[0], proxy: ps[1], local: ps[2], credo: ps[3], acapy: ps[4], stub: ps[5], floor: ps[6], createFloor: ps[7]}
	cf := filepath.Join(root, "Caddyfile")
	if err := os.WriteFile(cf, []byte(caddyfile(e.data, admin, requestLog, e.createFloorAnswer(), e.ports)), 0o600); err != nil {
		return e, err
	}
	if e.stubAgent, err = start("stub", filepath.Join(root, "stub.log"), fmt.Sprintf("127.0.0.1:%d", e.ports.stub)); err != nil {
		return e, err
	}
	if e.server, err = start("server", filepath.Join(root, serverLog), cf); err != nil {
		return e, err
	}
	exited := func(c *child) func() bool {
		return func() bool { return c.cmd.ProcessState != nil }
	}
	if err := waitPort(e.ports.stub, 30*time.Second, exited(e.stubAgent)); err != nil {
		return e, fmt.Errorf("stub agent: %v", err)
	}
	for _, p := range []int{e.ports.respond, e.ports.proxy, e.ports.local, e.ports.credo, e.ports.acapy, e.ports.floor, e.ports.createFloor} {
		if err := waitPort(p, 60*time.Second, exited(e.server)); err != nil {
			log, _ := os.ReadFile(filepath.Join(root, serverLog))
			return e, fmt.Errorf("server: %v\n%s", err, lastLines(log, 20))
		}
	}
	return e, nil
}

func (e *env) url(port int, path string) string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", port, path)
}

// storedRecord is a stored local proof record (nil before the first
// create): what the durable-write ceiling writes as much of, and what the
// create floor stores. A single instance keeps its records in the record
// journal; documents of their own are read too (cluster).
func (e *env) storedRecord() []byte {
	if recs, err := recordlog.Snapshot(filepath.Join(e.data, proofs.JournalDir)); err == nil {
		for _, rec := range recs {
			return rec
		}
	}
	var rec []byte
	_ = filepath.WalkDir(filepath.Join(e.data, "proofgate", "records"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			if b, err := os.ReadFile(p); err == nil {
				rec = b
				return filepath.SkipAll
			}
		}
		return nil
	})
	return rec
}

// recordSize is the size of a stored local proof record: what the
// durable-write ceiling writes.
func (e *env) recordSize() int {
	if rec := e.storedRecord(); rec != nil {
		return len(rec)
	}
	return 2048
}

// createFloorAnswer is the file the create floor takes its answer from
// (createfloor.go), written by writeCreateFloorAnswer.
func (e *env) createFloorAnswer() string {
	return filepath.Join(e.root, "create-floor-answer.json")
}

// writeCreateFloorAnswer gives the create floor a local create's answer
// and the record that create stored.
func (e *env) writeCreateFloorAnswer(a *answer) error {
	rec := e.storedRecord()
	if rec == nil {
		return errors.New("no stored record to give the create floor")
	}
	b, err := json.Marshal(createFloorAnswer{answer: *a, Record: rec})
	if err != nil {
		return err
	}
	return os.WriteFile(e.createFloorAnswer(), b, 0o600)
}

// rssKiB reads a process's resident set (VmRSS) from /proc.
func rssKiB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb
		}
	}
	return 0
}

// sampleRSS samples the server's RSS until stop is closed and returns the
// peak.
func sampleRSS(pid int, stop <-chan struct{}) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		peak := rssKiB(pid)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				out <- max(peak, rssKiB(pid))
				return
			case <-t.C:
				peak = max(peak, rssKiB(pid))
			}
		}
	}()
	return out
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times (100
// on every Linux this runs on).
const clockTicks = 100

// cpuTicks is the CPU time (user + system) a process used so far.
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may hold spaces; the fields after it are fixed.
	_, rest, ok := strings.Cut(string(b), ") ")
	if !ok {
		return 0
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return utime + stime
}

// loadavg is the 1-minute load average.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// fsType names the file system dir is on (the longest mount point of
// /proc/mounts that contains it), or "unknown".
func fsType(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "unknown"
	}
	raw, err := os.ReadFile("/proc/mounts")
	if err != nil {
		return "unknown"
	}
	best, typ := "", "unknown"
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		mp := f[1]
		if (abs == mp || strings.HasPrefix(abs, strings.TrimSuffix(mp, "/")+"/")) && len(mp) > len(best) {
			best, typ = mp, f[2]
		}
	}
	return typ
}
