package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// Caddy's logs go to the test that is running, not to stderr: every config
// the tests load sets Caddy's default logger to the writer below, which
// appends to the current test's buffer. A test that passes prints nothing;
// one that fails prints the few log lines that explain it (warnings and
// errors, and the last lines), not the whole JSON log of the package.
// PROOFGATE_TEST_LOGS=all prints every line of a failed test instead.

func init() {
	caddy.RegisterModule(testLogWriter{})
}

// testLogOutput is the Caddyfile `log { output … }` and JSON writer name.
const testLogOutput = "proofgate_test"

// testLogJSON is the JSON "logging" of every config the tests load
// themselves (the Caddyfiles get it from globalOptions).
const testLogJSON = `{"logs":{"default":{"writer":{"output":"` + testLogOutput + `"}}}}`

// maxTestLog bounds one test's buffer; older lines are dropped first.
const maxTestLog = 4 << 20

// logSink is where Caddy's log lines go: the running test's buffer, or
// nowhere between tests. Integration tests run one at a time (none calls
// t.Parallel: they share one in-process Caddy).
var logSink struct {
	mu  sync.Mutex
	buf *bytes.Buffer
}

// captureLogs sends Caddy's log lines to a buffer of t's own until t ends,
// and prints them, trimmed, if t failed.
func captureLogs(t *testing.T) {
	t.Helper()
	buf := new(bytes.Buffer)
	logSink.mu.Lock()
	prev := logSink.buf
	logSink.buf = buf
	logSink.mu.Unlock()
	t.Cleanup(func() {
		logSink.mu.Lock()
		logSink.buf = prev
		text := buf.String()
		logSink.mu.Unlock()
		if t.Failed() && text != "" {
			t.Log("Caddy's log of this test:\n" + trimLog(text, os.Getenv("PROOFGATE_TEST_LOGS") == "all"))
		}
	})
}

// pauseLogs drops Caddy's log lines until the next test starts capturing.
func pauseLogs() {
	logSink.mu.Lock()
	logSink.buf = nil
	logSink.mu.Unlock()
}

// testLogLines returns what Caddy logged in the current test so far.
func testLogLines() string {
	logSink.mu.Lock()
	defer logSink.mu.Unlock()
	if logSink.buf == nil {
		return ""
	}
	return logSink.buf.String()
}

type sinkWriter struct{}

func (sinkWriter) Write(p []byte) (int, error) {
	logSink.mu.Lock()
	defer logSink.mu.Unlock()
	if b := logSink.buf; b != nil {
		if b.Len()+len(p) > maxTestLog {
			// Keep the newest lines.
			keep := b.Bytes()[b.Len()/2:]
			if i := bytes.IndexByte(keep, '\n'); i >= 0 {
				keep = keep[i+1:]
			}
			rest := append([]byte("… (older lines dropped)\n"), keep...)
			b.Reset()
			b.Write(rest)
		}
		b.Write(p)
	}
	return len(p), nil
}

func (sinkWriter) Close() error { return nil }

// testLogWriter is the log writer module caddy.logging.writers.proofgate_test.
type testLogWriter struct{}

func (testLogWriter) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.logging.writers." + testLogOutput,
		New: func() caddy.Module { return new(testLogWriter) },
	}
}

func (testLogWriter) String() string                      { return testLogOutput }
func (testLogWriter) WriterKey() string                   { return testLogOutput }
func (testLogWriter) OpenWriter() (io.WriteCloser, error) { return sinkWriter{}, nil }

func (*testLogWriter) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the writer's name
	if d.NextArg() {
		return d.ArgErr()
	}
	return nil
}

// Limits of what a failed test prints.
const (
	trimKeepNotable = 15  // warnings and errors, the first ones
	trimKeepLast    = 15  // the last lines, whatever their level
	trimLineLength  = 300 // characters of one printed line
)

// trimLog turns Caddy's JSON log into short readable lines: the warnings
// and errors first (they usually explain a failure), then the last lines.
func trimLog(text string, all bool) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if all {
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = readableLogLine(l)
		}
		return strings.Join(out, "\n")
	}
	lines = slices.DeleteFunc(lines, isRoutineLogLine)
	var notable []int
	for i, l := range lines {
		if strings.Contains(l, `"level":"warn"`) || strings.Contains(l, `"level":"error"`) ||
			strings.Contains(l, `"level":"panic"`) || strings.Contains(l, `"level":"fatal"`) {
			notable = append(notable, i)
		}
	}
	if len(notable) > trimKeepNotable {
		notable = notable[:trimKeepNotable]
	}
	var keep []int
	keep = append(keep, notable...)
	for i := max(0, len(lines)-trimKeepLast); i < len(lines); i++ {
		if !slices.Contains(keep, i) {
			keep = append(keep, i)
		}
	}
	slices.Sort(keep)
	var b strings.Builder
	last := -1
	for _, i := range keep {
		if i > last+1 {
			fmt.Fprintf(&b, "  … %d lines\n", i-last-1)
		}
		b.WriteString("  " + readableLogLine(lines[i]) + "\n")
		last = i
	}
	if len(lines) > len(keep) {
		b.WriteString("  (PROOFGATE_TEST_LOGS=all prints every line)\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// routineLogLines are messages every test's Caddy logs; they never
// explain a failure.
var routineLogLines = []string{
	`"msg":"received request"`, // caddytest polling the admin endpoint
	`"msg":"autosaved config`,
	`"msg":"server is listening only on the HTTP port`,
	`"msg":"HTTP/2 skipped because it requires TLS"`,
	`"msg":"HTTP/3 skipped because it requires TLS"`,
	`"msg":"root certificate trust store installation disabled`,
	"caddytest: config load time",
}

func isRoutineLogLine(line string) bool {
	for _, s := range routineLogLines {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

// readableLogLine renders one JSON log entry as
// "level logger: message key=value …", cut to trimLineLength.
func readableLogLine(line string) string {
	var e map[string]any
	if json.Unmarshal([]byte(line), &e) != nil {
		return cut(line)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v %v: %v", e["level"], e["logger"], e["msg"])
	delete(e, "level")
	delete(e, "logger")
	delete(e, "msg")
	delete(e, "ts")
	keys := make([]string, 0, len(e))
	for k := range e {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v, _ := json.Marshal(e[k])
		fmt.Fprintf(&b, " %s=%s", k, v)
	}
	return cut(b.String())
}

func cut(s string) string {
	if len(s) > trimLineLength {
		return s[:trimLineLength] + "…"
	}
	return s
}

var (
	_ caddy.WriterOpener    = (*testLogWriter)(nil)
	_ caddyfile.Unmarshaler = (*testLogWriter)(nil)
)
