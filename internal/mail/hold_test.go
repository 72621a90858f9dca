package mail

import (
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/outbox"
)

// Request X queues a mail and is still making its other proof requests;
// request Y queues its mail and succeeds (Flush: Notify with its ids). Y's
// mail is sent; X's is not, so when X then fails its undo withdraws the
// mail (the README: every mail a failed request made is removed again).
func TestMailIsSentOnlyWhenItsOwnRequestSucceeds(t *testing.T) {
	srv := startServer(t, serverOptions{})
	h := newHarness(t, testConfig(srv.addr), t.TempDir())
	h.d.Start()
	time.Sleep(100 * time.Millisecond) // the start-up scan is over

	h.enqueue(t, testMessage("x-1", "alice@example.org")) // request X, in flight
	h.enqueue(t, testMessage("y-1", "bob@example.org"))   // request Y
	h.d.Notify("y-1")                                     // Y succeeded

	if r := h.until(t, StateSent); r.msg.ID != "y-1" {
		t.Fatalf("sent %s, the mail of a request still running", r.msg.ID)
	}
	h.d.scanNow() // the periodic scan does not send it either
	time.Sleep(500 * time.Millisecond)

	// X fails: undo cancels its mail.
	err := h.outbox.Cancel(t.Context(), "x-1")
	for _, m := range srv.messages() {
		if m.To[0] == "alice@example.org" {
			t.Fatalf("the mail of request X, which failed, was sent (Cancel = %v)", err)
		}
	}
	if err != nil {
		t.Fatalf("Cancel = %v", err)
	}
	if n := len(srv.messages()); n != 1 {
		t.Fatalf("server got %d messages, want Y's", n)
	}
}

// A mail whose request succeeded but whose release was lost (the process
// died before a worker took it) is sent by the next process once its hold
// ends.
func TestHeldMailIsSentWhenItsHoldEnds(t *testing.T) {
	srv := startServer(t, serverOptions{})
	dir := t.TempDir()
	cfg := testConfig(srv.addr)
	first := newHarness(t, cfg, dir)
	first.enqueue(t, testMessage("m-1", "alice@example.org"))
	// The process dies here, before Notify.

	second := newHarness(t, cfg, dir)
	second.d.Start()
	second.d.scanNow()
	time.Sleep(300 * time.Millisecond)
	if n := len(srv.messages()); n != 0 {
		t.Fatalf("sent %d messages during the hold", n)
	}
	second.skew.Store(int64(outbox.DefaultHold + time.Second))
	second.d.scanNow()
	if r := second.next(t); r.msg.ID != "m-1" || r.st.State != StateSent {
		t.Fatalf("result = %+v", r)
	}
}
