package outbox

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap/zaptest"
)

type outcome struct {
	e Entry
	s Status
}

func newTestDeliverer(t *testing.T, dir string, opts Options) (*Deliverer, chan outcome) {
	t.Helper()
	results := make(chan outcome, 100)
	opts.Logger = zaptest.NewLogger(t)
	opts.OnResult = func(e Entry, s Status) { results <- outcome{e, s} }
	if opts.Backoff == nil {
		opts.Backoff = func(int) time.Duration { return 10 * time.Millisecond }
	}
	d := NewDeliverer(New(&certmagic.FileStorage{Path: dir}, "test", nil), opts)
	t.Cleanup(d.Stop)
	return d, results
}

func next(t *testing.T, ch chan outcome) outcome {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(30 * time.Second):
		t.Fatal("no outcome")
		return outcome{}
	}
}

// Two kinds in one outbox, each with its own delivery function and result
// function; a temporary failure is retried, a permanent one is not.
func TestKinds(t *testing.T) {
	d, results := newTestDeliverer(t, t.TempDir(), Options{MaxAttempts: 5})
	var flaky atomic.Int32
	kindResults := make(chan string, 10)
	d.Handle("flaky", func(_ context.Context, e Entry) error {
		var p map[string]int
		if err := e.Decode(&p); err != nil || p["n"] != 7 {
			t.Errorf("payload %s: %v", e.Message, err)
		}
		if flaky.Add(1) < 3 {
			return &Failure{Public: "refused", Err: errors.New("dial tcp 10.1.2.3:443: connection refused")}
		}
		return nil
	}, func(e Entry, s Status) { kindResults <- e.ID + ":" + string(s.State) })
	d.Handle("doomed", func(context.Context, Entry) error { return Permanent(errors.New("gone")) }, nil)
	ctx := context.Background()
	if err := d.Outbox().Enqueue(ctx, "a", "flaky", map[string]int{"n": 7}); err != nil {
		t.Fatal(err)
	}
	if err := d.Outbox().Enqueue(ctx, "b", "doomed", nil); err != nil {
		t.Fatal(err)
	}
	d.Start()
	d.Notify()
	final := map[string]Status{}
	for len(final) < 2 {
		o := next(t, results)
		if o.s.State.Final() {
			final[o.e.ID] = o.s
		} else if o.e.ID != "a" || o.s.LastError != "refused" {
			t.Fatalf("retry %+v", o)
		}
	}
	if s := final["a"]; s.State != StateSent || s.Attempts != 3 || s.LastError != "" {
		t.Errorf("a: %+v", s)
	}
	if s := final["b"]; s.State != StateFailed || s.Attempts != 1 || s.LastError != "gone" {
		t.Errorf("b: %+v", s)
	}
	if got := <-kindResults; got != "a:queued" {
		t.Errorf("kind result %s", got)
	}
}

// A message of a kind nobody handles yet waits for a delivery function
// (a config that registers it later, after a reload).
func TestUnhandledKindWaits(t *testing.T) {
	d, results := newTestDeliverer(t, t.TempDir(), Options{})
	if err := d.Outbox().Enqueue(context.Background(), "m", "later", "x"); err != nil {
		t.Fatal(err)
	}
	d.Start()
	d.Notify()
	time.Sleep(100 * time.Millisecond)
	if st, _ := d.Outbox().Status(context.Background(), "m"); st.State != StateQueued || st.Attempts != 0 {
		t.Fatalf("status %+v", st)
	}
	d.Handle("later", func(context.Context, Entry) error { return nil }, nil)
	d.ScanNow()
	if o := next(t, results); o.s.State != StateSent {
		t.Fatalf("outcome %+v", o)
	}
}

// DeliverNow makes the attempt on the caller's goroutine and returns its
// outcome; a failure stays queued for the workers.
func TestDeliverNow(t *testing.T) {
	d, results := newTestDeliverer(t, t.TempDir(), Options{})
	var calls atomic.Int32
	d.Handle("k", func(context.Context, Entry) error {
		if calls.Add(1) == 1 {
			return errors.New("busy")
		}
		return nil
	}, nil)
	ctx := context.Background()
	if err := d.Outbox().Enqueue(ctx, "m", "k", 1); err != nil {
		t.Fatal(err)
	}
	st, err := d.DeliverNow(ctx, "m")
	if err != nil || st.State != StateQueued || st.Attempts != 1 || st.LastError != "busy" {
		t.Fatalf("DeliverNow = %+v, %v", st, err)
	}
	next(t, results)
	d.Start()
	if o := next(t, results); o.s.State != StateSent || o.s.Attempts != 2 {
		t.Fatalf("outcome %+v", o)
	}
	if st, err := d.DeliverNow(ctx, "m"); err != nil || st.State != StateSent || calls.Load() != 2 {
		t.Fatalf("DeliverNow of a sent message = %+v, %v (calls %d)", st, err, calls.Load())
	}
	if st, err := d.DeliverNow(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("DeliverNow of an unknown id = %+v, %v", st, err)
	}
}

// A panicking delivery function costs an attempt, not the process.
func TestPanicIsContained(t *testing.T) {
	d, results := newTestDeliverer(t, t.TempDir(), Options{MaxAttempts: 2})
	d.Handle("k", func(context.Context, Entry) error { panic("boom") }, nil)
	if err := d.Outbox().Enqueue(context.Background(), "m", "k", 1); err != nil {
		t.Fatal(err)
	}
	d.Start()
	d.Notify()
	for {
		o := next(t, results)
		if o.s.State.Final() {
			if o.s.State != StateFailed || o.s.LastError != "internal error" {
				t.Fatalf("outcome %+v", o)
			}
			return
		}
	}
}

// Deliverers of two instances sharing the storage deliver each message
// once.
func TestSharedStorageDeliversOnce(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	count := map[string]int{}
	deliver := func(_ context.Context, e Entry) error {
		mu.Lock()
		count[e.ID]++
		mu.Unlock()
		return nil
	}
	a, ra := newTestDeliverer(t, dir, Options{Workers: 4})
	b, rb := newTestDeliverer(t, dir, Options{Workers: 4})
	a.Handle("k", deliver, nil)
	b.Handle("k", deliver, nil)
	const n = 30
	for i := range n {
		if err := a.Outbox().Enqueue(context.Background(), fmt.Sprintf("m-%02d", i), "k", i); err != nil {
			t.Fatal(err)
		}
	}
	a.Start()
	b.Start()
	a.Notify()
	b.ScanNow()
	for done := 0; done < n; {
		select {
		case <-ra:
		case <-rb:
		case <-time.After(30 * time.Second):
			t.Fatalf("%d of %d delivered", done, n)
		}
		done++
	}
	mu.Lock()
	defer mu.Unlock()
	for id, c := range count {
		if c != 1 {
			t.Errorf("%s delivered %d times", id, c)
		}
	}
	if len(count) != n {
		t.Errorf("%d messages delivered, want %d", len(count), n)
	}
}

// The pool keeps one running deliverer per key until the last release.
func TestPool(t *testing.T) {
	builds := 0
	build := func() (*Deliverer, error) {
		builds++
		return NewDeliverer(New(&certmagic.FileStorage{Path: t.TempDir()}, "p", nil), Options{}), nil
	}
	d1, err := Acquire("test-pool", build)
	if err != nil {
		t.Fatal(err)
	}
	d2, _ := Acquire("test-pool", build) // the next config, before the old one's Cleanup
	if d1 != d2 || builds != 1 {
		t.Fatalf("second Acquire built a new deliverer (%d builds)", builds)
	}
	if err := Release("test-pool"); err != nil {
		t.Fatal(err)
	}
	d1.mu.Lock()
	running := d1.cancel != nil
	d1.mu.Unlock()
	if !running {
		t.Fatal("stopped while still held")
	}
	if err := Release("test-pool"); err != nil {
		t.Fatal(err)
	}
	d1.mu.Lock()
	running = d1.cancel != nil
	d1.mu.Unlock()
	if running {
		t.Fatal("still running after the last release")
	}
}

func TestBackoff(t *testing.T) {
	for _, tt := range []struct {
		attempt int
		full    time.Duration
	}{{1, time.Second}, {2, 2 * time.Second}, {4, 8 * time.Second}, {20, time.Minute}} {
		for range 50 {
			if got := Backoff(time.Second, time.Minute, tt.attempt); got < tt.full/2 || got > tt.full {
				t.Fatalf("Backoff(%d) = %v", tt.attempt, got)
			}
		}
	}
}

func TestEnqueueRejects(t *testing.T) {
	o := New(&certmagic.FileStorage{Path: t.TempDir()}, "x", nil)
	for _, id := range []string{"", "a/b", "..", string(make([]byte, 201))} {
		if err := o.Enqueue(context.Background(), id, "k", 1); err == nil {
			t.Errorf("id %q accepted", id)
		}
	}
	if err := o.Enqueue(context.Background(), "big", "k", make([]byte, MaxMessage)); err == nil {
		t.Error("oversized message accepted")
	}
}

// A message staged again while a worker attempts it keeps the new one:
// the attempt's outcome is not written over it, and the new message is
// delivered once released, not before.
func TestRestageDuringAttempt(t *testing.T) {
	d, results := newTestDeliverer(t, t.TempDir(), Options{})
	inAttempt := make(chan struct{})
	release := make(chan struct{})
	var calls atomic.Int32
	d.Handle("k", func(_ context.Context, e Entry) error {
		if calls.Add(1) == 1 {
			close(inAttempt)
			<-release
			return Permanent(errors.New("refused"))
		}
		var v int
		_ = e.Decode(&v)
		if v != 2 {
			t.Errorf("delivered payload %d, want the replacement's 2", v)
		}
		return nil
	}, nil)
	ctx := context.Background()
	if err := d.Outbox().Enqueue(ctx, "m", "k", 1); err != nil {
		t.Fatal(err)
	}
	d.Start()
	d.Notify()
	<-inAttempt
	replaced := make(chan error, 1)
	go func() { replaced <- d.Outbox().Restage(ctx, "m", "k", 2) }()
	if err := <-replaced; err != nil {
		t.Fatal(err)
	}
	close(release)
	d.Notify()
	d.ScanNow()
	select {
	case o := <-results:
		t.Fatalf("a held message was delivered before its release: %+v", o)
	case <-time.After(200 * time.Millisecond):
	}
	d.Notify("m")
	if o := next(t, results); o.s.State != StateSent || calls.Load() != 2 {
		t.Fatalf("outcome %+v after %d calls", o, calls.Load())
	}
}
