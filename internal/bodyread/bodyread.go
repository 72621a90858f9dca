// Package bodyread reads request bodies with the limits every public route
// needs: a size cap, a deadline (so a sender that stalls mid-body lets go
// of its connection and buffer), and, for routes anyone may call, a
// process-wide budget of bytes being buffered, so that many stalled senders
// cannot together hold memory in proportion to their number. The budget is
// charged as bytes arrive, not by what a sender announces: one that sends
// nothing holds none of it.
package bodyread

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"golang.org/x/sync/semaphore"
)

// DefaultTimeout is how long a whole body may take to arrive. A megabyte
// at a slow mobile link's 100 KB/s takes ten seconds.
const DefaultTimeout = 15 * time.Second

// Errors of Read.
var (
	// ErrTooLarge: the body is over the cap (413).
	ErrTooLarge = errors.New("body too large")
	// ErrTimeout: the body did not arrive in time (408).
	ErrTimeout = errors.New("body not received in time")
	// ErrBusy: the budget of buffered bytes is spent (503).
	ErrBusy = errors.New("too many bodies being received")
	// ErrRead: the connection failed mid-body (400).
	ErrRead = errors.New("body could not be read")
)

// Budget bounds the bytes all bodies being read buffer at once.
type Budget struct {
	sem *semaphore.Weighted
}

// NewBudget returns a budget of n bytes.
func NewBudget(n int64) *Budget { return &Budget{sem: semaphore.NewWeighted(n)} }

// Limits are one route's limits.
type Limits struct {
	// Max is the size cap in bytes.
	Max int64
	// Timeout bounds the time to read the body (DefaultTimeout when 0),
	// counted from when the request was taken (Started).
	Timeout time.Duration
	// Budget, when set, is charged for the buffer the body is read into
	// while it is read, and given back when Read returns. The buffer
	// grows as bytes arrive (see readCharged): a sender that announces
	// Max and sends nothing holds none of the budget, and one that sent
	// n bytes holds at most 2n or firstChunk. A body whose buffer must
	// grow when the budget has no room for it is refused with ErrBusy.
	Budget *Budget
}

// Read reads r's body within l. The deadline is set on the connection:
// on HTTP/1 behind Caddy, as the cap of the deadline Caddy's idle reader
// sets before each read; otherwise through http.NewResponseController,
// and where the connection does not take one (HTTP/2 streams on some
// servers), a timer closes the body instead.
//
// On every error the answer is marked Connection: close, so the server does
// not first wait for the rest of a body it will not use.
func Read(w http.ResponseWriter, r *http.Request, l Limits) ([]byte, error) {
	body, err := read(w, r, l)
	if err != nil {
		w.Header().Set("Connection", "close")
	}
	return body, err
}

// Started is when Caddy took r, which its idle reader keeps (Caddy wraps
// a body in one unless the read idle timeout is off), so that the clock is
// not read again; otherwise now.
func Started(r *http.Request) time.Time {
	if idle, ok := r.Body.(*caddyhttp.IdleTimeoutReader); ok && !idle.Deadline.Start.IsZero() {
		return idle.Deadline.Start
	}
	return time.Now()
}

func read(w http.ResponseWriter, r *http.Request, l Limits) ([]byte, error) {
	if r.ContentLength > l.Max {
		return nil, ErrTooLarge
	}
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	deadline := Started(r).Add(timeout)
	var body []byte
	var err error
	if idle, ok := r.Body.(*caddyhttp.IdleTimeoutReader); ok && r.ProtoMajor == 1 {
		body, err = readCapped(w, r, idle, l, deadline)
	} else {
		body, err = readControlled(w, r, l, deadline)
	}
	if err != nil {
		return nil, readError(err, deadline)
	}
	return body, nil
}

// The deadline's setting and lifting are each in a function of their own,
// with few returns, so that the compiler inlines their defers: a function
// with more defers and returns keeps its defers in records the runtime
// walks at every return, which cost the 400 path more than its deadline.

// readCapped reads the body under Caddy's idle reader, whose read deadlines
// are capped by deadline while it reads.
func readCapped(w http.ResponseWriter, r *http.Request, idle *caddyhttp.IdleTimeoutReader, l Limits, deadline time.Time) ([]byte, error) {
	// Caddy's idle reader sets a read deadline before every read and
	// clears it when the body ends; capping its hard deadline makes each
	// of those our deadline at the latest, without two more deadline
	// changes on the connection (see capIdleReader).
	prev := capIdleReader(idle, deadline)
	defer func() { idle.Deadline.HardDeadline = prev }()
	return readAll(w, r, l)
}

// readControlled reads the body with deadline set through
// http.NewResponseController and lifted after, or, where the connection
// does not take one (HTTP/2 streams on some servers), with a timer that
// closes the body at the deadline.
func readControlled(w http.ResponseWriter, r *http.Request, l Limits, deadline time.Time) ([]byte, error) {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(deadline); err != nil {
		t := time.AfterFunc(time.Until(deadline), func() { r.Body.Close() })
		defer t.Stop()
		return readAll(w, r, l)
	}
	// The connection serves further requests: lift the deadline.
	defer rc.SetReadDeadline(time.Time{}) //nolint:errcheck // best effort
	return readAll(w, r, l)
}

// readError is Read's error for a failed read of the body.
func readError(err error, deadline time.Time) error {
	var tooLarge *http.MaxBytesError
	switch {
	case err == ErrBusy || err == ErrTooLarge: // readCharged's own
		return err
	case errors.As(err, &tooLarge):
		return ErrTooLarge
	case !time.Now().Before(deadline):
		return ErrTimeout
	default:
		return ErrRead
	}
}

// exactSize is the largest announced body that is read into a buffer of
// exactly its Content-Length, allocated before the first byte arrives.
// Larger bodies grow their buffer as bytes come, so that a sender who
// announces much and sends little holds little memory.
const exactSize = 8 << 10

// readAll reads r's body, at most l.Max bytes (r.ContentLength is known
// not to exceed it), under l.Budget if any (readCharged). A small body of
// known length is read into one buffer of that size; anything else, and a
// body longer than announced, goes through http.MaxBytesReader as
// io.ReadAll would read it.
func readAll(w http.ResponseWriter, r *http.Request, l Limits) ([]byte, error) {
	if l.Budget != nil {
		return readCharged(r, l.Max, l.Budget)
	}
	max := l.Max
	n := r.ContentLength
	if n <= 0 || n > exactSize {
		return io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	}
	buf := make([]byte, n)
	got := 0
	for got < len(buf) {
		m, err := r.Body.Read(buf[got:])
		got += m
		if err == io.EOF {
			return buf[:got], nil // shorter than announced, as io.ReadAll reads it
		}
		if err != nil {
			return nil, err
		}
	}
	// The announced length is in; the body should end here.
	var probe [1]byte
	for {
		m, err := r.Body.Read(probe[:])
		if m > 0 {
			rest := struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(probe[:m]), r.Body), r.Body}
			more, err := io.ReadAll(http.MaxBytesReader(w, rest, max-n))
			if err != nil {
				return nil, err
			}
			return append(buf, more...), nil
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// firstChunk is the buffer a body read under a budget starts with (its
// announced length when smaller), allocated before the first byte and
// charged when that byte arrives: the most of the budget one byte takes.
const firstChunk = 512

// readCharged reads r's body, at most max bytes (r.ContentLength is known
// not to exceed it), into a buffer charged to budget as bytes arrive. The
// buffer starts at firstChunk; each time it is full it doubles, up to the
// announced length (past it only if more comes, up to max), its new size
// reserved before it is made. So a sender holds at most twice what it
// sent, or firstChunk, and one that sends nothing holds nothing; the
// budget bounds what all buffers with bytes in them hold (a first chunk
// still empty weighs less than the server's own state for its request),
// and a buffer it has no room for is ErrBusy. Reads ask for no more than
// max bytes in all, so no http.MaxBytesReader is needed; a byte past max
// is ErrTooLarge.
func readCharged(r *http.Request, max int64, budget *Budget) ([]byte, error) {
	c := charge{budget: budget}
	defer c.release()
	end := max // what the buffer grows to, unless more comes
	if r.ContentLength > 0 {
		end = r.ContentLength
	}
	buf := make([]byte, 0, min(end, firstChunk))
	for {
		if len(buf) == cap(buf) && int64(len(buf)) == end {
			// All that was announced (or max) is in: see whether the body
			// ends here before growing the buffer for more.
			b, err := readByte(r.Body)
			switch {
			case err == io.EOF:
				return buf, nil
			case err != nil:
				return nil, err
			case end == max:
				return nil, ErrTooLarge
			}
			end = max // longer than announced, as io.ReadAll would read it
			if buf = c.grow(buf, end); buf == nil {
				return nil, ErrBusy
			}
			buf = append(buf, b)
		}
		if len(buf) == cap(buf) {
			if buf = c.grow(buf, end); buf == nil {
				return nil, ErrBusy
			}
		}
		m, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		// The first bytes charge the first chunk; later ones are in a
		// buffer charged when it grew.
		if m > 0 && !c.cover(int64(cap(buf))) {
			return nil, ErrBusy
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readByte reads the next byte of body.
func readByte(body io.Reader) (byte, error) {
	var p [1]byte
	for {
		n, err := body.Read(p[:])
		if n > 0 {
			return p[0], nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// charge is what one body being read holds of a Budget: the size of its
// buffer once bytes are in it.
type charge struct {
	budget *Budget
	held   int64
}

// cover makes the charge n bytes, if it is less and the budget has room
// for the difference.
func (c *charge) cover(n int64) bool {
	if n <= c.held {
		return true
	}
	if !c.budget.sem.TryAcquire(n - c.held) {
		return false
	}
	c.held = n
	return true
}

// grow returns buf's contents in a buffer twice its size, at most end,
// charged before it is made; nil when the budget has no room for it.
func (c *charge) grow(buf []byte, end int64) []byte {
	next := min(2*int64(cap(buf)), end)
	if !c.cover(next) {
		return nil
	}
	grown := make([]byte, len(buf), next)
	copy(grown, buf)
	return grown
}

// release gives the charge back to the budget.
func (c *charge) release() {
	if c.held > 0 {
		c.budget.sem.Release(c.held)
		c.held = 0
	}
}

// capIdleReader makes deadline the latest read deadline Caddy's idle
// reader sets, for the reads of the body in this handler, and returns the
// reader's own cap, to be put back after.
//
// Caddy wraps every HTTP/1 request body in an IdleTimeoutReader (unless
// read_idle_timeout is negative) that installs now+read_idle_timeout on
// the connection before each read, capped by its HardDeadline, and clears
// it when the body ends (io.EOF) or fails. A deadline set through
// http.ResponseController reaches the same reader and ends up as the same
// cap, but costs two more deadline changes on the connection (set, then
// lifted) and a walk through every wrapper of the response writer, per
// request. The reader is used by this goroutine only while the handler
// reads the body, so its exported settings may be changed here.
func capIdleReader(idle *caddyhttp.IdleTimeoutReader, deadline time.Time) (prev time.Time) {
	prev = idle.Deadline.HardDeadline
	if prev.IsZero() || deadline.Before(prev) {
		idle.Deadline.HardDeadline = deadline
	}
	return prev
}
