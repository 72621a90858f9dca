package mail

import (
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// The deliverer's log, at every level, names a recipient by its domain
// only: an address is personal data.
func TestLogHidesRecipients(t *testing.T) {
	srv := startServer(t, serverOptions{})
	h := newHarness(t, testConfig(srv.addr), t.TempDir())
	core, logs := observer.New(zapcore.DebugLevel)
	h.d.logger = zap.New(core)
	h.d.Start()
	m := testMessage("m-1", "alice.private@example.org")
	h.enqueue(t, m)
	h.d.Notify(m.ID)
	if r := h.next(t); r.st.State != StateSent {
		t.Fatalf("result = %+v", r.st)
	}
	seen := false
	for _, e := range logs.All() {
		for k, v := range e.ContextMap() {
			s, _ := v.(string)
			if strings.Contains(s, "alice.private") {
				t.Errorf("log %q: %s = %q names the recipient", e.Message, k, s)
			}
			seen = seen || s == "***@example.org"
		}
	}
	if !seen {
		t.Error("no log line names the recipient's domain")
	}
}
