package mail

import (
	"testing"
	"time"
)

// Configs sharing a pooled deliverer each subscribe to its outcomes. A
// config Caddy refused after provisioning it removes its subscription in
// Cleanup, and the running config hears the outcomes again; removing an
// older subscription (the replaced config's Cleanup) keeps the newest.
func TestOutcomeSubscriptionsAreUndoneByTheirConfigs(t *testing.T) {
	srv := startServer(t, serverOptions{})
	h := newHarness(t, testConfig(srv.addr), t.TempDir())
	h.d.onResult = nil
	heard := make(chan string, 10)
	subscriber := func(name string) func(Message, Status) {
		return func(m Message, s Status) {
			if s.State == StateSent {
				heard <- name + ":" + m.ID
			}
		}
	}
	send := func(id string) string {
		t.Helper()
		h.enqueue(t, testMessage(id, "alice@example.org"))
		h.d.Notify(id)
		select {
		case got := <-heard:
			return got
		case <-time.After(60 * time.Second):
			t.Fatalf("nobody heard of %s", id)
			return ""
		}
	}
	h.d.Start()
	removeRunning := h.d.Subscribe(subscriber("running"), nil)
	removeRefused := h.d.Subscribe(subscriber("refused"), nil)
	removeRefused()
	if got := send("m-1"); got != "running:m-1" {
		t.Fatalf("after the refused config's cleanup: %s", got)
	}
	removeNext := h.d.Subscribe(subscriber("next"), nil)
	removeRunning()
	removeRunning()
	if got := send("m-2"); got != "next:m-2" {
		t.Fatalf("after the replaced config's cleanup: %s", got)
	}
	removeNext()
	h.enqueue(t, testMessage("m-3", "alice@example.org"))
	h.d.Notify("m-3")
	eventually(t, "m-3 sent without subscribers", func() bool {
		st, err := h.outbox.Status(t.Context(), "m-3")
		return err == nil && st.State == StateSent
	})
	select {
	case got := <-heard:
		t.Fatalf("a removed subscription heard %s", got)
	default:
	}
}
