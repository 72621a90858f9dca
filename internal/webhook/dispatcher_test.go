package webhook

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap/zaptest"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/outbox"
)

const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// receiver is a webhook endpoint on loopback that verifies every
// signature and answers 503 to the first `down` attempts.
type receiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	down int
	hits int
	got  []received
}

type received struct {
	id    string
	event Event
}

func newReceiver(t *testing.T, down int) *receiver {
	key, err := ParseSecret(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	r := &receiver{down: down}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if err := Verify(key, req.Header.Get(HeaderID), req.Header.Get(HeaderTimestamp), req.Header.Get(HeaderSignature), body, time.Now(), 5*time.Minute); err != nil {
			t.Errorf("bad signature: %v", err)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		r.hits++
		if r.hits <= r.down {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var ev Event
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Errorf("body %s: %v", body, err)
		}
		r.got = append(r.got, received{req.Header.Get(HeaderID), ev})
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) events() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func newTestDispatcher(t *testing.T, dir string, cfgs ...Config) (*Dispatcher, *outbox.Deliverer, chan outbox.Status) {
	t.Helper()
	results := make(chan outbox.Status, 100)
	opts := DeliveryOptions(zaptest.NewLogger(t), func(_ outbox.Entry, s outbox.Status) { results <- s })
	opts.Backoff = func(int) time.Duration { return 30 * time.Millisecond }
	del := outbox.NewDeliverer(outbox.New(&certmagic.FileStorage{Path: dir}, "webhooks", nil), opts)
	d, err := New(cfgs, del, zaptest.NewLogger(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(del.Stop)
	return d, del, results
}

// sharing is another handler's dispatcher on del (another site on the
// same storage, or the next config during a reload), closed with the test.
func sharing(t *testing.T, del *outbox.Deliverer, cfgs ...Config) *Dispatcher {
	t.Helper()
	d, err := New(cfgs, del, zaptest.NewLogger(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

func change(id, prev, state, org string) backend.StateChange {
	return backend.StateChange{ID: id, PreviousState: prev, Record: backend.ProofRecord{
		ID: "rec-1", ThreadID: "thr-1", OrgID: org, State: state, Metadata: map[string]any{},
	}}
}

func TestDeliveryWithRetriesAndSignature(t *testing.T) {
	r := newReceiver(t, 2)
	other := newReceiver(t, 0)
	d, del, results := newTestDispatcher(t, t.TempDir(),
		Config{URL: r.srv.URL, Secret: testSecret, AllowPrivate: true, IncludeRecord: true},
		Config{URL: other.srv.URL, Secret: testSecret, AllowPrivate: true, Orgs: []string{"org-2"}},
	)
	del.Start()
	st, err := d.Stage(context.Background(), change("ev-1", "", backend.StateRequestSent, "org-1"))
	if err != nil {
		t.Fatal(err)
	}
	st.Commit()
	var final outbox.Status
	for final.State != outbox.StateSent {
		select {
		case final = <-results:
		case <-time.After(30 * time.Second):
			t.Fatal("not delivered")
		}
	}
	if final.Attempts != 3 {
		t.Fatalf("attempts %d, want 3", final.Attempts)
	}
	got := r.events()
	if len(got) != 1 || got[0].id != "ev-1" || got[0].event.ID != "ev-1" || got[0].event.Type != EventType ||
		got[0].event.Data.State != backend.StateRequestSent || got[0].event.Data.PreviousState != "" ||
		got[0].event.Data.ProofRecordID != "rec-1" || got[0].event.Data.Record == nil {
		t.Fatalf("received %+v", got)
	}
	if n := len(other.events()); n != 0 {
		t.Fatalf("the org-2 endpoint got %d events", n)
	}
}

func TestAbortWithdraws(t *testing.T) {
	r := newReceiver(t, 0)
	d, del, _ := newTestDispatcher(t, t.TempDir(), Config{URL: r.srv.URL, Secret: testSecret, AllowPrivate: true})
	st, err := d.Stage(context.Background(), change("ev-1", "", backend.StateRequestSent, "org-1"))
	if err != nil {
		t.Fatal(err)
	}
	st.Abort(context.Background())
	if _, err := del.Outbox().Status(context.Background(), messageID("ev-1", r.srv.URL)); err == nil {
		t.Fatal("aborted message still queued")
	}
}

// Without allow_private a loopback receiver is refused by the address
// guard, and the status says so without naming the address.
func TestGuardRefusesLoopback(t *testing.T) {
	r := newReceiver(t, 0)
	d, del, results := newTestDispatcher(t, t.TempDir(), Config{URL: r.srv.URL, Secret: testSecret})
	del.Start()
	st, err := d.Stage(context.Background(), change("ev-1", "", backend.StateRequestSent, "org-1"))
	if err != nil {
		t.Fatal(err)
	}
	st.Commit()
	select {
	case s := <-results:
		if s.State != outbox.StateQueued || s.LastError != "endpoint-not-public" {
			t.Fatalf("status %+v", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no attempt")
	}
	if len(r.events()) != 0 {
		t.Fatal("delivered past the guard")
	}
}

// A message left in the outbox by an earlier process is delivered by the
// next one, with the same webhook-id.
func TestRestartDelivers(t *testing.T) {
	r := newReceiver(t, 0)
	dir := t.TempDir()
	cfg := Config{URL: r.srv.URL, Secret: testSecret, AllowPrivate: true}
	d1, _, _ := newTestDispatcher(t, dir, cfg)
	st, err := d1.Stage(context.Background(), change("ev-9", backend.StateRequestSent, backend.StatePresentationReceived, "org-1"))
	if err != nil {
		t.Fatal(err)
	}
	st.Commit() // never started: the process "died"
	_, del2, results := newTestDispatcher(t, dir, cfg)
	del2.Start()
	select {
	case s := <-results:
		if s.State != outbox.StateSent {
			t.Fatalf("status %+v", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("not delivered")
	}
	if got := r.events(); len(got) != 1 || got[0].id != "ev-9" {
		t.Fatalf("received %+v", got)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []Config{
		{URL: "ftp://x.example", Secret: testSecret},
		{URL: "https://u:p@x.example", Secret: testSecret},
		{URL: "https://x.example"},
		{URL: "https://x.example", Secret: testSecret, Timeout: -1},
	}
	for _, c := range tests {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if _, err := New([]Config{{URL: "https://x.example", Secret: "whsec_short"}}, outbox.NewDeliverer(outbox.New(&certmagic.FileStorage{Path: t.TempDir()}, "w", nil), outbox.Options{}), nil, nil); err == nil {
		t.Error("short secret accepted")
	}
}

// A message for a change that was never stored (the process died between
// staging it and the record's write) is not sent, and is dropped.
func TestUnconfirmedChangeIsDropped(t *testing.T) {
	r := newReceiver(t, 0)
	results := make(chan outbox.Status, 100)
	opts := DeliveryOptions(zaptest.NewLogger(t), func(_ outbox.Entry, s outbox.Status) { results <- s })
	opts.Backoff = func(int) time.Duration { return 10 * time.Millisecond }
	del := outbox.NewDeliverer(outbox.New(&certmagic.FileStorage{Path: t.TempDir()}, "webhooks", nil), opts)
	t.Cleanup(del.Stop)
	stored := map[string]bool{"presentation-received": true}
	d, err := New([]Config{{URL: r.srv.URL, Secret: testSecret, AllowPrivate: true}}, del, zaptest.NewLogger(t),
		func(_ context.Context, org, rec, state string) (bool, error) { return stored[state], nil })
	if err != nil {
		t.Fatal(err)
	}
	del.Start()
	for _, c := range []backend.StateChange{
		change("ev-ghost", backend.StateRequestSent, backend.StateAbandoned, "org-1"),
		change("ev-real", backend.StateRequestSent, backend.StatePresentationReceived, "org-1"),
	} {
		st, err := d.Stage(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		st.Commit()
	}
	final := map[string]outbox.Status{}
	for len(final) < 2 {
		select {
		case s := <-results:
			if s.State.Final() {
				final[s.LastError] = s
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("outcomes %v", final)
		}
	}
	if s, ok := final["change-not-stored"]; !ok || s.State != outbox.StateFailed || s.Attempts != outbox.UnconfirmedAttempts {
		t.Fatalf("ghost: %+v", final)
	}
	if got := r.events(); len(got) != 1 || got[0].id != "ev-real" {
		t.Fatalf("received %+v", got)
	}
}
