package mail

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

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
			h.d.Notify("m-1")
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
	h.d.Notify("m-1")
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
	h.d.Notify("m-1")
	r := h.next(t)
	if r.st.State != StateFailed || r.st.Attempts != 1 || !strings.Contains(r.st.LastError, "550") {
		t.Fatalf("result = %+v", r.st)
	}
	if strings.Contains(r.st.LastError, "nobody") {
		t.Errorf("error shows the address: %s", r.st.LastError)
	}
	// The next message goes through: one bad address does not block others.
	h.enqueue(t, testMessage("m-2", "alice@example.org"))
	h.d.Notify("m-2")
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
			h.d.Notify("m-1")
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
	h.d.Notify("m-1")
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
