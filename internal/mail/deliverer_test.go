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

func TestDeliverInvitation(t *testing.T) {
	srv := startServer(t, serverOptions{})
	cfg := testConfig(srv.addr)
	h := newHarness(t, cfg, t.TempDir())
	h.d.Start()
	m := testMessage("m-1", "alice@example.org")
	h.enqueue(t, m)
	h.d.Notify()

	r := h.next(t)
	if r.st.State != StateSent || r.st.Attempts != 1 || r.st.LastError != "" || r.st.FinishedAt.IsZero() {
		t.Fatalf("result = %+v", r.st)
	}
	if r.msg.ProofRecordID != m.ProofRecordID || r.msg.ThreadID != m.ThreadID || r.msg.OrgID != m.OrgID {
		t.Errorf("result message = %+v", r.msg)
	}
	got := srv.wait(t)
	if got.From != "noreply@verifier.example.com" || len(got.To) != 1 || got.To[0] != m.To {
		t.Errorf("envelope from %q to %v", got.From, got.To)
	}
	checkInvitation(t, got.Data, m, cfg)
	st, err := h.outbox.Status(t.Context(), m.ID)
	if err != nil || st.State != StateSent {
		t.Fatalf("Status = %+v, %v", st, err)
	}
}

func TestSTARTTLSWithAuth(t *testing.T) {
	tlsCfg, caFile := testCert(t)
	srv := startServer(t, serverOptions{tls: tlsCfg, users: map[string]string{"mailer": "s3cret"}})
	cfg := testConfig(srv.addr)
	cfg.TLS = TLSStartTLS
	cfg.CAFile = caFile
	cfg.Username, cfg.Password = "mailer", "s3cret"
	h := newHarness(t, cfg, t.TempDir())
	h.d.Start()
	h.enqueue(t, testMessage("m-1", "alice@example.org"))
	h.d.Notify()
	if r := h.next(t); r.st.State != StateSent {
		t.Fatalf("result = %+v", r.st)
	}
	got := srv.wait(t)
	if !got.TLS || got.User != "mailer" {
		t.Errorf("session TLS=%v user=%q, want TLS and mailer", got.TLS, got.User)
	}
}

func TestImplicitTLSWithAuth(t *testing.T) {
	tlsCfg, caFile := testCert(t)
	srv := startServer(t, serverOptions{tls: tlsCfg, implicit: true, users: map[string]string{"mailer": "s3cret"}})
	cfg := testConfig(srv.addr)
	cfg.TLS = TLSImplicit
	cfg.CAFile = caFile
	cfg.Username, cfg.Password = "mailer", "s3cret"
	h := newHarness(t, cfg, t.TempDir())
	h.d.Start()
	h.enqueue(t, testMessage("m-1", "alice@example.org"))
	h.d.Notify()
	if r := h.next(t); r.st.State != StateSent {
		t.Fatalf("result = %+v", r.st)
	}
	if got := srv.wait(t); !got.TLS || got.User != "mailer" {
		t.Errorf("session TLS=%v user=%q", got.TLS, got.User)
	}
}

// Failures of the session itself are retried, never sent insecurely, and
// described without the password.
func TestSessionFailuresAreRetried(t *testing.T) {
	tlsCfg, caFile := testCert(t)
	otherTLS, _ := testCert(t)
	tests := []struct {
		name   string
		server serverOptions
		cfg    func(*Config)
		want   string // in LastError
	}{
		{
			name:   "wrong password",
			server: serverOptions{tls: tlsCfg, users: map[string]string{"mailer": "s3cret"}},
			cfg:    func(c *Config) { c.TLS, c.CAFile, c.Username, c.Password = TLSStartTLS, caFile, "mailer", "wrong-pw" },
			want:   "535",
		},
		{
			name:   "starttls required, not offered",
			server: serverOptions{},
			cfg:    func(c *Config) { c.TLS = TLSStartTLS },
			want:   "STARTTLS",
		},
		{
			name:   "untrusted certificate",
			server: serverOptions{tls: otherTLS},
			cfg:    func(c *Config) { c.TLS, c.CAFile = TLSStartTLS, caFile },
			want:   "certificate",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, tt.server)
			cfg := testConfig(srv.addr)
			cfg.MaxAttempts = 2
			tt.cfg(&cfg)
			h := newHarness(t, cfg, t.TempDir())
			h.d.Start()
			h.enqueue(t, testMessage("m-1", "alice@example.org"))
			h.d.Notify()
			r := h.next(t)
			if r.st.State != StateQueued || r.st.Attempts != 1 || !strings.Contains(r.st.LastError, tt.want) {
				t.Fatalf("first result = %+v, want queued with %q", r.st, tt.want)
			}
			if strings.Contains(r.st.LastError, "s3cret") || strings.Contains(r.st.LastError, "wrong-pw") {
				t.Fatalf("error shows the password: %s", r.st.LastError)
			}
			if r := h.next(t); r.st.State != StateFailed || r.st.Attempts != 2 {
				t.Fatalf("second result = %+v, want failed after 2 attempts", r.st)
			}
			if n := len(srv.messages()); n != 0 {
				t.Fatalf("server accepted %d messages", n)
			}
		})
	}
}

func TestTemporaryRejectionIsRetried(t *testing.T) {
	srv := startServer(t, serverOptions{rcpt: func(_ string, n int) error {
		if n <= 2 {
			return smtpErr(451, smtp.EnhancedCode{4, 3, 0}, "try again later")
		}
		return nil
	}})
	h := newHarness(t, testConfig(srv.addr), t.TempDir())
	var backoffs []int
	h.d.backoff = func(attempt int) time.Duration {
		backoffs = append(backoffs, attempt) // only the one worker that has the message calls it
		return 20 * time.Millisecond
	}
	h.d.Start()
	h.enqueue(t, testMessage("m-1", "alice@example.org"))
	h.d.Notify()
	for attempt := 1; attempt <= 2; attempt++ {
		r := h.next(t)
		if r.st.State != StateQueued || r.st.Attempts != attempt || !strings.Contains(r.st.LastError, "451") || r.st.NextAttempt.IsZero() {
			t.Fatalf("result %d = %+v", attempt, r.st)
		}
	}
	if r := h.next(t); r.st.State != StateSent || r.st.Attempts != 3 || r.st.LastError != "" {
		t.Fatalf("third result = %+v", r.st)
	}
	if len(srv.messages()) != 1 {
		t.Fatalf("server got %d messages", len(srv.messages()))
	}
	h.d.Stop()
	if fmt.Sprint(backoffs) != "[1 2]" {
		t.Errorf("backoff asked for attempts %v, want [1 2]", backoffs)
	}
}

func TestPermanentRejectionFailsAtOnce(t *testing.T) {
	srv := startServer(t, serverOptions{rcpt: func(to string, _ int) error {
		if to == "nobody@example.org" {
			return smtpErr(550, smtp.EnhancedCode{5, 1, 1}, "<nobody@example.org>: no such user")
		}
		return nil
	}})
	h := newHarness(t, testConfig(srv.addr), t.TempDir())
	h.d.Start()
	h.enqueue(t, testMessage("m-1", "nobody@example.org"))
	h.d.Notify()
	r := h.next(t)
	if r.st.State != StateFailed || r.st.Attempts != 1 || !strings.Contains(r.st.LastError, "550") {
		t.Fatalf("result = %+v", r.st)
	}
	if strings.Contains(r.st.LastError, "nobody") {
		t.Errorf("error shows the address: %s", r.st.LastError)
	}
	// The next message goes through: one bad address does not block others.
	h.enqueue(t, testMessage("m-2", "alice@example.org"))
	h.d.Notify()
	if r := h.next(t); r.st.State != StateSent || r.msg.ID != "m-2" {
		t.Fatalf("second result = %+v", r)
	}
}

// Which replies fail a message at once and which are retried, by stage.
func TestRejectionStages(t *testing.T) {
	once := func(code int, esc smtp.EnhancedCode) func(int) error {
		return func(n int) error {
			if n == 1 {
				return smtpErr(code, esc, "no")
			}
			return nil
		}
	}
	tests := []struct {
		name   string
		server serverOptions
		first  State  // state after the first attempt
		text   string // in LastError
	}{
		{"RCPT 550", serverOptions{rcpt: func(_ string, n int) error { return once(550, smtp.EnhancedCode{5, 1, 1})(n) }}, StateFailed, "RCPT TO command: SMTP 550 5.1.1"},
		{"RCPT 452", serverOptions{rcpt: func(_ string, n int) error { return once(452, smtp.EnhancedCode{4, 2, 2})(n) }}, StateQueued, "RCPT TO command: SMTP 452 4.2.2"},
		{"DATA 554", serverOptions{data: once(554, smtp.EnhancedCode{5, 6, 0})}, StateFailed, "SMTP 554 5.6.0"},
		{"DATA 451", serverOptions{data: once(451, smtp.EnhancedCode{4, 3, 0})}, StateQueued, "SMTP 451 4.3.0"},
		// A refused sender is the configuration's problem, not the
		// message's: retried, in case it is fixed meanwhile.
		{"MAIL FROM 550", serverOptions{mail: once(550, smtp.EnhancedCode{5, 7, 1})}, StateQueued, "MAIL FROM command: SMTP 550 5.7.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, tt.server)
			h := newHarness(t, testConfig(srv.addr), t.TempDir())
			h.d.Start()
			h.enqueue(t, testMessage("m-1", "alice@example.org"))
			h.d.Notify()
			r := h.next(t)
			if r.st.State != tt.first || r.st.Attempts != 1 || !strings.Contains(r.st.LastError, tt.text) {
				t.Fatalf("first result = %+v, want %s with %q", r.st, tt.first, tt.text)
			}
			if tt.first == StateFailed {
				if n := len(srv.messages()); n != 0 {
					t.Fatalf("server kept %d messages", n)
				}
				return
			}
			if r := h.next(t); r.st.State != StateSent || r.st.Attempts != 2 {
				t.Fatalf("second result = %+v", r.st)
			}
			if n := len(srv.messages()); n != 1 {
				t.Fatalf("server got %d messages", n)
			}
		})
	}
}

func TestServerDownThenUp(t *testing.T) {
	addr := freeAddr(t)
	cfg := testConfig(addr)
	cfg.MaxAttempts = 100
	h := newHarness(t, cfg, t.TempDir())
	h.d.backoff = func(int) time.Duration { return 50 * time.Millisecond }
	h.d.Start()
	h.enqueue(t, testMessage("m-1", "alice@example.org"))
	h.d.Notify()
	r := h.next(t)
	if r.st.State != StateQueued || !strings.Contains(r.st.LastError, "refused") {
		t.Fatalf("result while down = %+v", r.st)
	}
	st, err := h.outbox.Status(t.Context(), "m-1")
	if err != nil || st.State == StateSent || st.State == StateFailed {
		t.Fatalf("status while down = %+v, %v", st, err)
	}
	srv := startServer(t, serverOptions{addr: addr})
	if r := h.until(t, StateSent); r.msg.ID != "m-1" {
		t.Fatalf("sent %+v", r)
	}
	srv.wait(t)
}

// A message enqueued while no deliverer runs, and one whose sender died
// mid-send, are delivered by the next deliverer on the same storage.
func TestRestartDeliversLeftovers(t *testing.T) {
	srv := startServer(t, serverOptions{})
	dir := t.TempDir()
	cfg := testConfig(srv.addr)

	first := newHarness(t, cfg, dir)
	first.d.Start()
	first.d.Stop()
	first.d.Stop() // idempotent
	first.enqueue(t, testMessage("m-1", "alice@example.org"))
	first.d.Notify() // stopped: nothing happens

	// A claim whose deliverer died: "sending" with an expired lease.
	crashed := document{
		Message: testMessage("m-2", "bob@example.org"),
		Status:  Status{State: StateSending, Attempts: 1, CreatedAt: time.Now(), UpdatedAt: time.Now()},
	}
	crashed.LeaseUntil = time.Now().Add(-time.Second)
	if err := first.outbox.store.Put(t.Context(), "m-2", &crashed); err != nil {
		t.Fatal(err)
	}

	second := newHarness(t, cfg, dir)
	second.d.Start()
	sent := map[string]int{}
	for range 2 {
		r := second.next(t)
		if r.st.State != StateSent {
			t.Fatalf("result = %+v", r)
		}
		sent[r.msg.ID] = r.st.Attempts
	}
	if sent["m-1"] != 1 || sent["m-2"] != 2 {
		t.Fatalf("attempts = %v", sent)
	}
	select {
	case r := <-first.results:
		t.Fatalf("stopped deliverer reported %+v", r)
	default:
	}
}

// Stop lets a send in flight finish and records its outcome.
func TestStopWaitsForSendInFlight(t *testing.T) {
	inData := make(chan struct{})
	release := make(chan struct{})
	srv := startServer(t, serverOptions{data: func(int) error {
		close(inData)
		<-release
		return nil
	}})
	h := newHarness(t, testConfig(srv.addr), t.TempDir())
	h.d.Start()
	h.enqueue(t, testMessage("m-1", "alice@example.org"))
	h.d.Notify()
	select {
	case <-inData:
	case <-time.After(60 * time.Second):
		t.Fatal("the message never reached DATA")
	}
	stopped := make(chan struct{})
	go func() { h.d.Stop(); close(stopped) }()
	time.Sleep(100 * time.Millisecond) // let Stop begin: it must still wait
	select {
	case <-stopped:
		t.Fatal("Stop returned while a send was in flight")
	default:
	}
	close(release)
	select {
	case <-stopped:
	case <-time.After(60 * time.Second):
		t.Fatal("Stop did not return")
	}
	st, err := h.outbox.Status(t.Context(), "m-1")
	if err != nil || st.State != StateSent {
		t.Fatalf("status after Stop = %+v, %v", st, err)
	}
	if r := h.next(t); r.st.State != StateSent {
		t.Fatalf("result = %+v", r)
	}
}

// A stopped deliverer starts again.
func TestStopStart(t *testing.T) {
	srv := startServer(t, serverOptions{})
	h := newHarness(t, testConfig(srv.addr), t.TempDir())
	for i := range 3 {
		h.d.Start()
		h.d.Start()
		h.enqueue(t, testMessage(fmt.Sprintf("m-%d", i), "alice@example.org"))
		h.d.Notify()
		if r := h.next(t); r.st.State != StateSent {
			t.Fatalf("round %d: %+v", i, r)
		}
		h.d.Stop()
	}
	if n := len(srv.messages()); n != 3 {
		t.Fatalf("server got %d messages", n)
	}
}

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
	for i := range n {
		h := a
		if i%2 == 1 {
			h = b
		}
		h.enqueue(t, testMessage(fmt.Sprintf("m-%02d", i), fmt.Sprintf("user%d@example.org", i)))
	}
	// Both are told, so both race for every message.
	a.d.Notify()
	b.d.Notify()
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
	h.d.Notify()
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
	h.d.Notify()
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
	h.d.scanNow()
	for _, id := range []string{"m-1", "m-2"} {
		eventually(t, id+" deleted", func() bool {
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
	h.d.Notify()
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

func TestCallbackPanicIsContained(t *testing.T) {
	srv := startServer(t, serverOptions{})
	h := newHarness(t, testConfig(srv.addr), t.TempDir())
	calls := make(chan string, 4)
	h.d.onResult = func(m Message, _ Status) {
		calls <- m.ID
		panic("boom")
	}
	h.d.Start()
	for _, id := range []string{"m-1", "m-2"} {
		h.enqueue(t, testMessage(id, "alice@example.org"))
		h.d.Notify()
		select {
		case got := <-calls:
			if got != id {
				t.Fatalf("callback for %s, want %s", got, id)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("no callback")
		}
	}
}
