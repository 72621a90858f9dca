package mail

import (
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"github.com/emersion/go-smtp"
)

// Two instances sharing storage (two deliverers, two outboxes, two
// FileStorage values on one directory) deliver each message once.
func TestTwoDeliverersShareTheOutbox(t *testing.T) {
	srv := startServer(t, serverOptions{})
	dir := t.TempDir()
	cfg := testConfig(srv.addr)
	cfg.Workers = 4 // more overlap between the two
	a := newHarness(t, cfg, dir)
	b := newHarness(t, cfg, dir)
	a.d.Start()
	b.d.Start()
	const n = 40
	var queued []string
	for i := range n {
		h := a
		if i%2 == 1 {
			h = b
		}
		id := fmt.Sprintf("m-%02d", i)
		h.enqueue(t, testMessage(id, fmt.Sprintf("user%d@example.org", i)))
		queued = append(queued, id)
	}
	// Both are told, so both race for every message.
	a.d.Notify(queued...)
	b.d.Notify(queued...)
	a.d.scanNow()
	b.d.scanNow()
	sent := map[string]int{}
	for len(sent) < n {
		var r result
		select {
		case r = <-a.results:
		case r = <-b.results:
		case <-time.After(60 * time.Second):
			t.Fatalf("only %d of %d sent", len(sent), n)
		}
		if r.st.State != StateSent {
			t.Fatalf("result = %+v", r)
		}
		sent[r.msg.ID]++
	}
	a.d.Stop()
	b.d.Stop()
	ids := map[string]int{}
	for _, m := range srv.messages() {
		msg, err := mail.ReadMessage(strings.NewReader(string(m.Data)))
		if err != nil {
			t.Fatal(err)
		}
		ids[msg.Header.Get("Message-Id")]++
	}
	if len(ids) != n || len(srv.messages()) != n {
		t.Fatalf("server got %d messages with %d distinct ids, want %d", len(srv.messages()), len(ids), n)
	}
	for id, c := range sent {
		if c != 1 {
			t.Errorf("%s reported sent %d times", id, c)
		}
	}
}

// Two deliverers that both found a message due, at the same moment, do not
// both send it: the claim happens under the storage lock, on a fresh read.
func TestClaimRace(t *testing.T) {
	srv := startServer(t, serverOptions{})
	dir := t.TempDir()
	cfg := testConfig(srv.addr)
	a := newHarness(t, cfg, dir)
	b := newHarness(t, cfg, dir)
	var arrived sync.WaitGroup
	arrived.Add(2)
	met := make(chan struct{})
	go func() { arrived.Wait(); close(met) }()
	var once [2]sync.Once
	for i, h := range []*harness{a, b} {
		h.d.afterPeek = func(string) {
			once[i].Do(func() {
				arrived.Done()
				select {
				case <-met:
				case <-time.After(30 * time.Second):
					t.Error("the deliverers did not meet")
				}
			})
		}
	}
	a.enqueue(t, testMessage("m-1", "alice@example.org"))
	a.d.Notify("m-1") // its request committed; both scans find it due
	a.d.Start()
	b.d.Start()
	select {
	case <-met:
	case <-time.After(60 * time.Second):
		t.Fatal("the deliverers did not both find the message due")
	}
	var r result
	select {
	case r = <-a.results:
	case r = <-b.results:
	case <-time.After(60 * time.Second):
		t.Fatal("not sent")
	}
	if r.st.State != StateSent {
		t.Fatalf("result = %+v", r)
	}
	a.d.Stop()
	b.d.Stop()
	if n := len(srv.messages()); n != 1 {
		t.Fatalf("server got %d messages, want 1", n)
	}
}

func TestCancel(t *testing.T) {
	srv := startServer(t, serverOptions{})
	h := newHarness(t, testConfig(srv.addr), t.TempDir())
	ctx := t.Context()
	h.enqueue(t, testMessage("m-1", "alice@example.org"))
	if err := h.outbox.Cancel(ctx, "m-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.outbox.Status(ctx, "m-1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Status after Cancel = %v", err)
	}
	if err := h.outbox.Cancel(ctx, "m-1"); err != nil {
		t.Fatalf("second Cancel = %v", err)
	}
	if err := h.outbox.Cancel(ctx, "../etc"); err != nil {
		t.Fatalf("Cancel of an impossible id = %v", err)
	}

	h.enqueue(t, testMessage("m-2", "bob@example.org"))
	h.d.Start()
	h.d.Notify("m-2")
	if r := h.next(t); r.msg.ID != "m-2" || r.st.State != StateSent {
		t.Fatalf("result = %+v", r)
	}
	h.d.Stop()
	if msgs := srv.messages(); len(msgs) != 1 || msgs[0].To[0] != "bob@example.org" {
		t.Fatalf("server got %+v", msgs)
	}
	if err := h.outbox.Cancel(ctx, "m-2"); !errors.Is(err, ErrTooLate) {
		t.Fatalf("Cancel of a sent message = %v, want ErrTooLate", err)
	}
}

// Finished messages are deleted once their retention is over.
func TestRetention(t *testing.T) {
	srv := startServer(t, serverOptions{rcpt: func(to string, _ int) error {
		if strings.HasPrefix(to, "nobody") {
			return smtpErr(550, smtp.EnhancedCode{5, 1, 1}, "no such user")
		}
		return nil
	}})
	cfg := testConfig(srv.addr)
	cfg.Retention = caddy.Duration(time.Hour)
	h := newHarness(t, cfg, t.TempDir())
	h.d.Start()
	h.enqueue(t, testMessage("m-1", "alice@example.org"))
	h.enqueue(t, testMessage("m-2", "nobody@example.org"))
	h.d.Notify("m-1", "m-2")
	h.next(t)
	h.next(t)
	// Still there after a rescan within the retention.
	h.d.scanNow()
	for _, id := range []string{"m-1", "m-2"} {
		if st, err := h.outbox.Status(t.Context(), id); err != nil || !st.State.Final() {
			t.Fatalf("%s: %+v, %v", id, st, err)
		}
	}
	h.skew.Store(int64(2 * time.Hour))
	for _, id := range []string{"m-1", "m-2"} {
		eventually(t, id+" deleted", func() bool {
			// Scanned again while waiting: a worker that reported its
			// outcome (h.next) may still hold the message through the
			// scans above, and then leaves it to the next periodic scan.
			h.d.scanNow()
			_, err := h.outbox.Status(t.Context(), id)
			return errors.Is(err, ErrNotFound)
		})
	}
}

// A crashed deliverer's claim on its last attempt ends the message as
// failed rather than sending it again.
func TestExpiredClaimOnLastAttemptFails(t *testing.T) {
	srv := startServer(t, serverOptions{})
	cfg := testConfig(srv.addr)
	cfg.MaxAttempts = 3
	dir := t.TempDir()
	h := newHarness(t, cfg, dir)
	doc := document{
		Message:    testMessage("m-1", "alice@example.org"),
		Status:     Status{State: StateSending, Attempts: 3, CreatedAt: time.Now(), UpdatedAt: time.Now()},
		LeaseUntil: time.Now().Add(-time.Second),
	}
	if err := h.outbox.store.Put(t.Context(), "m-1", &doc); err != nil {
		t.Fatal(err)
	}
	h.d.Start()
	r := h.next(t)
	if r.st.State != StateFailed || r.st.Attempts != 3 || r.st.LastError == "" {
		t.Fatalf("result = %+v", r.st)
	}
	if n := len(srv.messages()); n != 0 {
		t.Fatalf("server got %d messages", n)
	}
}

// A claim that has not expired is left alone.
func TestLiveClaimIsLeftAlone(t *testing.T) {
	srv := startServer(t, serverOptions{})
	h := newHarness(t, testConfig(srv.addr), t.TempDir())
	doc := document{
		Message:    testMessage("m-1", "alice@example.org"),
		Status:     Status{State: StateSending, Attempts: 1, CreatedAt: time.Now(), UpdatedAt: time.Now()},
		LeaseUntil: time.Now().Add(time.Hour),
	}
	if err := h.outbox.store.Put(t.Context(), "m-1", &doc); err != nil {
		t.Fatal(err)
	}
	h.d.Start()
	h.enqueue(t, testMessage("m-2", "bob@example.org"))
	h.d.Notify("m-2")
	if r := h.next(t); r.msg.ID != "m-2" {
		t.Fatalf("result = %+v", r)
	}
	if err := h.outbox.Cancel(t.Context(), "m-1"); !errors.Is(err, ErrTooLate) {
		t.Fatalf("Cancel of a message being sent = %v", err)
	}
	h.d.Stop()
	if n := len(srv.messages()); n != 1 {
		t.Fatalf("server got %d messages", n)
	}
}

func TestEnqueueRejectsBadMessages(t *testing.T) {
	o := NewOutbox(&certmagic.FileStorage{Path: t.TempDir()}, "")
	good := testMessage("m-1", "alice@example.org")
	tests := []struct {
		name string
		edit func(*Message)
	}{
		{"empty id", func(m *Message) { m.ID = "" }},
		{"id with slash", func(m *Message) { m.ID = "a/b" }},
		{"no recipient", func(m *Message) { m.To = "" }},
		{"display name", func(m *Message) { m.To = "Alice <alice@example.org>" }},
		{"two recipients", func(m *Message) { m.To = "a@example.org, b@example.org" }},
		{"header injection", func(m *Message) { m.To = "a@example.org\r\nBcc: x@example.org" }},
		{"no URL", func(m *Message) { m.InvitationURL = "" }},
		{"relative URL", func(m *Message) { m.InvitationURL = "/url/abc" }},
		{"javascript URL", func(m *Message) { m.InvitationURL = "javascript:alert(1)" }},
		{"huge URL", func(m *Message) { m.InvitationURL = "https://x.example/" + strings.Repeat("a", maxURLLen) }},
		{"multi-line label", func(m *Message) { m.Label = "a\nb" }},
		{"long label", func(m *Message) { m.Label = strings.Repeat("a", maxLabelLen+1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := good
			tt.edit(&m)
			err := o.Enqueue(t.Context(), m)
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), "example.org") {
				t.Errorf("error shows the address: %v", err)
			}
		})
	}
	if err := o.Enqueue(t.Context(), good); err != nil {
		t.Fatalf("good message: %v", err)
	}
	st, err := o.Status(t.Context(), good.ID)
	if err != nil || st.State != StateQueued || st.Attempts != 0 || st.CreatedAt.IsZero() {
		t.Fatalf("Status = %+v, %v", st, err)
	}
}
