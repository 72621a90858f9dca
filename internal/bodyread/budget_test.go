package bodyread

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestBudgetIdleSendersHoldNothing: the budget is charged as bytes
// arrive, not by the announced length. Senders that announce Max and send
// nothing, more than the budget could hold at that size, are all read
// (none refused), and a complete body meanwhile is read too. (Charged by
// the announcement, sixteen such requests held the DIDComm endpoint's
// whole budget for the body timeout at about 2 KB per 15 s.)
func TestBudgetIdleSendersHoldNothing(t *testing.T) {
	const idle = 3
	started := make(chan struct{}, idle)
	srv := serve(t, Limits{Max: 1 << 20, Timeout: 5 * time.Second, Budget: NewBudget(2 << 20)}, started, 0)
	addr := srv.Listener.Addr().String()
	for i := range idle {
		c := stall(t, addr, 1<<20, 0)
		select {
		case <-started:
		case <-time.After(3 * time.Second):
			t.Fatalf("idle sender %d was not read (answered %d): an announced length took the budget", i, status(t, c))
		}
	}
	if s := status(t, stall(t, addr, 2, 2)); s != http.StatusOK {
		t.Fatalf("complete body beside %d idle senders: %d, want 200", idle, s)
	}
}

// TestBudgetRefusesPastTheBound: senders that sent enough for their
// buffers to hold the whole budget get later bodies refused at once
// (503), small ones too; when one goes, its share returns.
func TestBudgetRefusesPastTheBound(t *testing.T) {
	read := make(chan struct{}, 8)
	// 600 KiB of a 1 MiB body is in a buffer grown to the announced 1 MiB.
	srv := serve(t, Limits{Max: 1 << 20, Timeout: 5 * time.Second, Budget: NewBudget(2 << 20)}, read, 600<<10)
	addr := srv.Listener.Addr().String()
	held := []net.Conn{stall(t, addr, 1<<20, 600<<10), stall(t, addr, 1<<20, 600<<10)}
	for range held {
		<-read
	}
	if s := status(t, stall(t, addr, 1<<20, 100)); s != http.StatusServiceUnavailable {
		t.Fatalf("third sender while the budget is spent: %d, want 503", s)
	}
	if s := status(t, stall(t, addr, 10, 10)); s != http.StatusServiceUnavailable {
		t.Fatalf("small body while the budget is spent: %d, want 503", s)
	}
	held[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c := stall(t, addr, 10, 10)
		s := status(t, c)
		if s == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("budget not returned: %d", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// meteredBody is a body of size bytes, sent at most chunk at a time, that
// checks at every read that the body holds no more of budget (of total
// bytes, used by this body only) than its buffer needs for what it sent:
// nothing before the first byte, then firstChunk or twice what it sent.
type meteredBody struct {
	t      *testing.T
	budget *Budget
	total  int64
	size   int
	chunk  int
	sent   int
}

func (b *meteredBody) Read(p []byte) (int, error) {
	bound := int64(0)
	if b.sent > 0 {
		bound = max(firstChunk, 2*int64(b.sent))
	}
	if free := b.total - bound; free > 0 {
		if !b.budget.sem.TryAcquire(free) {
			b.t.Fatalf("after %d bytes sent the body holds more than %d of the budget", b.sent, bound)
		}
		b.budget.sem.Release(free)
	}
	if b.sent == b.size {
		return 0, io.EOF
	}
	n := min(len(p), b.chunk, b.size-b.sent)
	b.sent += n
	return n, nil
}

func (b *meteredBody) Close() error { return nil }

// TestBudgetChargesWhatArrived: at every read, the body holds no more of
// the budget than its buffer needs for the bytes that arrived, whatever
// it announced; all of it is back after.
func TestBudgetChargesWhatArrived(t *testing.T) {
	const total = 4 << 20
	for _, tc := range []struct {
		name      string
		announced int64
		size      int
		chunk     int
	}{
		{"announced, in chunks", 1 << 20, 1 << 20, 1000},
		{"announced, stops short", 1 << 20, 3000, 1000},
		{"announced, a byte at a time", 3000, 3000, 1},
		{"unknown length", -1, 100 << 10, 4096},
		{"longer than announced", 1000, 5000, 700},
	} {
		t.Run(tc.name, func(t *testing.T) {
			budget := NewBudget(total)
			body := &meteredBody{t: t, budget: budget, total: total, size: tc.size, chunk: tc.chunk}
			r := httptest.NewRequest(http.MethodPost, "/", body)
			r.ContentLength = tc.announced
			got, err := Read(httptest.NewRecorder(), r, Limits{Max: 1 << 20, Budget: budget})
			if err != nil || len(got) != tc.size {
				t.Fatalf("%d bytes, %v; want %d", len(got), err, tc.size)
			}
			if !budget.sem.TryAcquire(total) {
				t.Fatal("the budget was not given back")
			}
		})
	}
}

// TestBudgetRefusesAGrowth: a body whose buffer must grow when the budget
// has no room for it is refused (ErrBusy), at its first byte or mid-body,
// and gives back what it held.
func TestBudgetRefusesAGrowth(t *testing.T) {
	for _, tc := range []struct {
		name      string
		budget    int64
		announced int64
		size      int
		err       error
	}{
		{"fits", 1000, 600, 600, nil},
		{"fits at the announced length", 600, 600, 600, nil},
		{"a small body takes its length", 10, 10, 10, nil},
		{"no room for the first chunk", 100, 1 << 20, 1, ErrBusy},
		{"no room to grow", 1000, -1, 600, ErrBusy},
		{"no room to grow past the announced length", 600, 600, 601, ErrBusy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			budget := NewBudget(tc.budget)
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("x", tc.size)))
			r.ContentLength = tc.announced
			got, err := Read(httptest.NewRecorder(), r, Limits{Max: 1 << 20, Budget: budget})
			if !errors.Is(err, tc.err) || (err == nil && len(got) != tc.size) {
				t.Fatalf("%d bytes, %v; want %d, %v", len(got), err, tc.size, tc.err)
			}
			if !budget.sem.TryAcquire(tc.budget) {
				t.Fatal("the budget was not given back")
			}
		})
	}
}
