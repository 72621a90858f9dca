// Package bodyread reads request bodies with the limits every public route
// needs: a size cap, a deadline (so a sender that stalls mid-body lets go
// of its connection and buffer), and, for routes anyone may call, a
// process-wide budget of bytes being buffered, so that many stalled senders
// cannot together hold memory in proportion to their number.
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

// Budget bounds the bytes all holders buffer at once.
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
	// Budget, when set, must have room for the body (its Content-Length,
	// or Max when unknown) before a byte is read; otherwise ErrBusy at once.
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
	if l.Budget != nil {
		n := r.ContentLength
		if n < 0 {
			n = l.Max
		}
		if !l.Budget.sem.TryAcquire(n) {
			return nil, ErrBusy
		}
		defer l.Budget.sem.Release(n)
	}
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	deadline := Started(r).Add(timeout)
	var body []byte
	var err error
	if idle, ok := r.Body.(*caddyhttp.IdleTimeoutReader); ok && r.ProtoMajor == 1 {
		body, err = readCapped(w, r, idle, l.Max, deadline)
	} else {
		body, err = readControlled(w, r, l.Max, deadline)
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
func readCapped(w http.ResponseWriter, r *http.Request, idle *caddyhttp.IdleTimeoutReader, max int64, deadline time.Time) ([]byte, error) {
	// Caddy's idle reader sets a read deadline before every read and
	// clears it when the body ends; capping its hard deadline makes each
	// of those our deadline at the latest, without two more deadline
	// changes on the connection (see capIdleReader).
	prev := capIdleReader(idle, deadline)
	defer func() { idle.Deadline.HardDeadline = prev }()
	return readAll(w, r, max)
}

// readControlled reads the body with deadline set through
// http.NewResponseController and lifted after, or, where the connection
// does not take one (HTTP/2 streams on some servers), with a timer that
// closes the body at the deadline.
func readControlled(w http.ResponseWriter, r *http.Request, max int64, deadline time.Time) ([]byte, error) {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(deadline); err != nil {
		t := time.AfterFunc(time.Until(deadline), func() { r.Body.Close() })
		defer t.Stop()
		return readAll(w, r, max)
	}
	// The connection serves further requests: lift the deadline.
	defer rc.SetReadDeadline(time.Time{}) //nolint:errcheck // best effort
	return readAll(w, r, max)
}

// readError is Read's error for a failed read of the body.
func readError(err error, deadline time.Time) error {
	var tooLarge *http.MaxBytesError
	switch {
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

// readAll reads r's body, at most max bytes (r.ContentLength is known not
// to exceed it). A small body of known length is read into one buffer of
// that size; anything else, and a body longer than announced, goes through
// http.MaxBytesReader as io.ReadAll would read it.
func readAll(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
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
