package mail

import (
	"fmt"
	"testing"
	"time"
)

func TestDeliverInvitation(t *testing.T) {
	srv := startServer(t, serverOptions{})
	cfg := testConfig(srv.addr)
	h := newHarness(t, cfg, t.TempDir())
	h.d.Start()
	m := testMessage("m-1", "alice@example.org")
	h.enqueue(t, m)
	h.d.Notify(m.ID) // its request committed

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
	h.d.Notify("m-1")
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
	h.d.Notify("m-1")
	if r := h.next(t); r.st.State != StateSent {
		t.Fatalf("result = %+v", r.st)
	}
	if got := srv.wait(t); !got.TLS || got.User != "mailer" {
		t.Errorf("session TLS=%v user=%q", got.TLS, got.User)
	}
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
	first.d.Notify("m-1") // stopped: nothing is sent

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
	h.d.Notify("m-1")
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
		id := fmt.Sprintf("m-%d", i)
		h.enqueue(t, testMessage(id, "alice@example.org"))
		h.d.Notify(id)
		if r := h.next(t); r.st.State != StateSent {
			t.Fatalf("round %d: %+v", i, r)
		}
		h.d.Stop()
	}
	if n := len(srv.messages()); n != 3 {
		t.Fatalf("server got %d messages", n)
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
		h.d.Notify(id)
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
