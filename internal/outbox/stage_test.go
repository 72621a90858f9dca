package outbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap/zaptest"
)

// testClock is a clock a test moves forward.
type testClock struct{ skew atomic.Int64 }

func (c *testClock) now() time.Time { return time.Now().Add(time.Duration(c.skew.Load())) }

func (c *testClock) advance(d time.Duration) { c.skew.Add(int64(d)) }

// newClockedDeliverer is newTestDeliverer with a clock the test moves, for
// both the outbox (Stage's hold) and the deliverer; every message of kind
// "k" is delivered and its id sent on the returned channel.
func newClockedDeliverer(t *testing.T, dir string, clock *testClock) (*Deliverer, chan string, chan outcome) {
	t.Helper()
	results := make(chan outcome, 100)
	delivered := make(chan string, 100)
	d := NewDeliverer(New(&certmagic.FileStorage{Path: dir}, "test", clock.now), Options{
		Logger:   zaptest.NewLogger(t),
		OnResult: func(e Entry, s Status) { results <- outcome{e, s} },
		Backoff:  func(int) time.Duration { return 10 * time.Millisecond },
		Now:      clock.now,
	})
	d.Handle("k", func(_ context.Context, e Entry) error {
		delivered <- e.ID
		return nil
	}, nil)
	t.Cleanup(d.Stop)
	return d, delivered, results
}

func stage(t *testing.T, o *Outbox, id string) {
	t.Helper()
	if err := o.Stage(context.Background(), id, "k", id); err != nil {
		t.Fatal(err)
	}
}

// One request's commit (Notify with its ids) releases its own staged
// message and no other: request X, still running, can withdraw its
// message afterwards, and it never goes out. Neither a scan nor a bare
// Notify releases a staged message.
func TestNotifyReleasesOnlyTheCommittingRequestsMessages(t *testing.T) {
	clock := new(testClock)
	d, delivered, _ := newClockedDeliverer(t, t.TempDir(), clock)
	d.Start()
	stage(t, d.Outbox(), "x-1") // request X: still making its other records
	stage(t, d.Outbox(), "y-1") // request Y
	d.Notify("y-1")             // Y succeeded

	select {
	case id := <-delivered:
		if id != "y-1" {
			t.Fatalf("delivered %s, the message of a request that has not committed", id)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the committed request's message was not delivered")
	}
	d.Notify()  // someone's Enqueue
	d.ScanNow() // the periodic scan
	time.Sleep(300 * time.Millisecond)
	select {
	case id := <-delivered:
		t.Fatalf("delivered %s before its request committed", id)
	default:
	}
	// X fails: its undo withdraws the message.
	if err := d.Outbox().Cancel(context.Background(), "x-1"); err != nil {
		t.Fatalf("Cancel of the failed request's message = %v", err)
	}
	if _, err := d.Outbox().Status(context.Background(), "x-1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the withdrawn message is still there: %v", err)
	}
	if st, err := d.Outbox().Status(context.Background(), "y-1"); err != nil || st.State != StateSent {
		t.Fatalf("y-1: %+v, %v", st, err)
	}
}

// A staged message whose release was lost (the process died after its
// request committed, before a worker claimed it) is delivered once its
// hold ends, by a scan of the next process: late, never lost.
func TestStagedMessageIsDeliveredWhenItsHoldEnds(t *testing.T) {
	clock := new(testClock)
	dir := t.TempDir()
	// The process that staged it died before Notify: only the document
	// remains.
	stage(t, New(&certmagic.FileStorage{Path: dir}, "test", clock.now), "m")

	d, delivered, results := newClockedDeliverer(t, dir, clock)
	d.Start()
	d.ScanNow()
	time.Sleep(300 * time.Millisecond)
	select {
	case id := <-delivered:
		t.Fatalf("%s delivered during its hold", id)
	default:
	}
	if st, err := d.Outbox().Status(context.Background(), "m"); err != nil || st.State != StateQueued || st.Attempts != 0 {
		t.Fatalf("status during the hold: %+v, %v", st, err)
	}

	clock.advance(DefaultHold + time.Second)
	d.ScanNow()
	if o := next(t, results); o.e.ID != "m" || o.s.State != StateSent || o.s.Attempts != 1 {
		t.Fatalf("outcome %+v", o)
	}
}

// A release is honoured by any deliverer of the process over the same
// storage and namespace: one that replaced the deliverer told of it (a
// reload with a new e-mail configuration) finds the message on its next
// scan and delivers it at once, while a message still staged waits.
func TestReleaseIsHonouredByTheNextDeliverersScan(t *testing.T) {
	clock := new(testClock)
	dir := t.TempDir()
	old, oldDelivered, _ := newClockedDeliverer(t, dir, clock) // never started: stopped by a reload
	stage(t, old.Outbox(), "committed")
	stage(t, old.Outbox(), "running")
	old.Notify("committed")

	d, delivered, _ := newClockedDeliverer(t, dir, clock)
	d.Start() // starts with a scan
	select {
	case id := <-delivered:
		if id != "committed" {
			t.Fatalf("delivered %s", id)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the released message was not delivered")
	}
	d.ScanNow()
	time.Sleep(300 * time.Millisecond)
	select {
	case id := <-delivered:
		t.Fatalf("delivered %s again or early", id)
	case id := <-oldDelivered:
		t.Fatalf("the stopped deliverer delivered %s", id)
	default:
	}
}

// Staging an id again holds the new message, even if the earlier one was
// released and not yet delivered.
func TestStagingAgainHoldsTheNewMessage(t *testing.T) {
	clock := new(testClock)
	d, delivered, _ := newClockedDeliverer(t, t.TempDir(), clock)
	stage(t, d.Outbox(), "m")
	d.Notify("m") // not started: nobody delivers it yet
	stage(t, d.Outbox(), "m")
	d.Start()
	time.Sleep(300 * time.Millisecond)
	select {
	case id := <-delivered:
		t.Fatalf("%s delivered before the request that staged it again committed", id)
	default:
	}
	d.Notify("m")
	select {
	case <-delivered:
	case <-time.After(30 * time.Second):
		t.Fatal("not delivered after its release")
	}
}

// The registrations of a kind form a stack: removing the newest (a config
// Caddy refused after Provision) restores the one before, removing an
// older one (the replaced config's Cleanup) keeps the newest, and a kind
// without any waits.
func TestHandleRegistrationsAreUndoneByTheirOwners(t *testing.T) {
	d, results := newTestDeliverer(t, t.TempDir(), Options{})
	var mu sync.Mutex
	var by []string
	fn := func(name string) DeliverFunc {
		return func(context.Context, Entry) error {
			mu.Lock()
			by = append(by, name)
			mu.Unlock()
			return nil
		}
	}
	deliver := func(id string) string {
		t.Helper()
		if err := d.Outbox().Enqueue(context.Background(), id, "k", 1); err != nil {
			t.Fatal(err)
		}
		d.Notify()
		if o := next(t, results); o.e.ID != id || o.s.State != StateSent {
			t.Fatalf("outcome %+v", o)
		}
		mu.Lock()
		defer mu.Unlock()
		return by[len(by)-1]
	}
	d.Start()
	removeOld := d.Handle("k", fn("old"), nil)
	removeRefused := d.Handle("k", fn("refused"), nil)
	removeRefused() // Caddy refused the new config: its Cleanup
	removeRefused() // harmless twice
	if got := deliver("m1"); got != "old" {
		t.Fatalf("after the refused config's cleanup, %s delivered", got)
	}
	removeNext := d.Handle("k", fn("next"), nil)
	removeOld() // the replaced config's Cleanup
	if got := deliver("m2"); got != "next" {
		t.Fatalf("after the old config's cleanup, %s delivered", got)
	}
	removeNext()
	if err := d.Outbox().Enqueue(context.Background(), "m3", "k", 1); err != nil {
		t.Fatal(err)
	}
	d.Notify()
	time.Sleep(300 * time.Millisecond)
	if st, _ := d.Outbox().Status(context.Background(), "m3"); st.State != StateQueued || st.Attempts != 0 {
		t.Fatalf("a message without a delivery function: %+v", st)
	}
}

// Two configurations that share a deliverer (two sites on one storage)
// each deliver their own messages: a registration that answers ErrNotMine
// passes the message on, newest first, and a message neither takes is a
// temporary failure with the newest's answer. The newest used to take
// every message, failing or mishandling the other configuration's.
func TestHandleNotMinePassesOn(t *testing.T) {
	d, results := newTestDeliverer(t, t.TempDir(), Options{MaxAttempts: 1})
	var mu sync.Mutex
	by := map[string]string{}
	site := func(name string, mine func(int) bool) DeliverFunc {
		return func(_ context.Context, e Entry) error {
			var n int
			if err := e.Decode(&n); err != nil {
				return err
			}
			if !mine(n) {
				return &Failure{Public: name + ": not configured", Err: fmt.Errorf("%w: %d", ErrNotMine, n)}
			}
			mu.Lock()
			by[e.ID] = name
			mu.Unlock()
			return nil
		}
	}
	defer d.Handle("k", site("a", func(n int) bool { return n == 1 }), nil)()
	defer d.Handle("k", site("b", func(n int) bool { return n == 2 }), nil)()
	d.Start()
	for _, tt := range []struct {
		id    string
		n     int
		state State
		by    string
	}{
		{"for-a", 1, StateSent, "a"},
		{"for-b", 2, StateSent, "b"},
		{"for-none", 3, StateFailed, ""},
	} {
		if err := d.Outbox().Enqueue(context.Background(), tt.id, "k", tt.n); err != nil {
			t.Fatal(err)
		}
		d.Notify()
		o := next(t, results)
		mu.Lock()
		got := by[tt.id]
		mu.Unlock()
		if o.e.ID != tt.id || o.s.State != tt.state || got != tt.by {
			t.Fatalf("%s: %+v delivered by %q, want %s by %q", tt.id, o.s, got, tt.state, tt.by)
		}
		if tt.by == "" && !strings.HasPrefix(o.s.LastError, "b:") {
			t.Fatalf("%s: last error %q, want the newest's", tt.id, o.s.LastError)
		}
	}
}

// Every configuration sharing a deliverer hears every outcome (each notes
// those of its own: a handler routes a mail's outcome by the org it
// serves). Only the newest used to hear them, so another site's mails
// never had their outcome noted on their records.
func TestHandleEveryResultHeard(t *testing.T) {
	d, results := newTestDeliverer(t, t.TempDir(), Options{})
	var mu sync.Mutex
	heard := map[string][]string{}
	result := func(name string) ResultFunc {
		return func(e Entry, _ Status) {
			mu.Lock()
			heard[name] = append(heard[name], e.ID)
			mu.Unlock()
		}
	}
	ok := func(context.Context, Entry) error { return nil }
	defer d.Handle("k", ok, result("a"))()
	defer d.Handle("k", ok, result("b"))()
	d.Start()
	if err := d.Outbox().Enqueue(context.Background(), "m", "k", 1); err != nil {
		t.Fatal(err)
	}
	d.Notify()
	if o := next(t, results); o.s.State != StateSent {
		t.Fatalf("%+v", o)
	}
	// The kind's result functions run right after the deliverer's own.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		a, b := len(heard["a"]), len(heard["b"])
		mu.Unlock()
		if a == 1 && b == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("heard by a %d, by b %d times, want once each", a, b)
		}
	}
}
