package bodyread

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// stall opens a connection that sends the headers of a POST announcing
// size bytes and then only the first sent bytes, and returns it.
func stall(t *testing.T, addr string, size, sent int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", size, strings.Repeat("a", sent))
	return c
}

func status(t *testing.T, c net.Conn) int {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// serve serves Read with l. When read is set, the handler tells it once
// it has read after bytes of a body (0: when it first reads).
func serve(t *testing.T, l Limits, read chan<- struct{}, after int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if read != nil {
			r.Body = &signalBody{ReadCloser: r.Body, read: read, after: after}
		}
		_, err := Read(w, r, l)
		switch {
		case err == nil:
			w.WriteHeader(http.StatusOK)
		case errors.Is(err, ErrTooLarge):
			w.WriteHeader(http.StatusRequestEntityTooLarge)
		case errors.Is(err, ErrTimeout):
			w.WriteHeader(http.StatusRequestTimeout)
		case errors.Is(err, ErrBusy):
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// signalBody tells once the handler has read after bytes of the body (0:
// when it first reads). Past firstChunk, the budget was charged for them
// by then: a buffer grows before the read that fills it.
type signalBody struct {
	io.ReadCloser
	read  chan<- struct{}
	after int
	got   int
	told  bool
}

func (b *signalBody) Read(p []byte) (int, error) {
	if !b.told && b.after == 0 {
		b.told = true
		b.read <- struct{}{}
	}
	n, err := b.ReadCloser.Read(p)
	b.got += n
	if !b.told && b.got >= b.after {
		b.told = true
		b.read <- struct{}{}
	}
	return n, err
}

func TestStalledBodyTimesOut(t *testing.T) {
	srv := serve(t, Limits{Max: 1 << 20, Timeout: 200 * time.Millisecond}, nil, 0)
	c := stall(t, srv.Listener.Addr().String(), 1<<20, 1000)
	if s := status(t, c); s != http.StatusRequestTimeout {
		t.Fatalf("stalled body: %d, want 408", s)
	}
}

func TestTooLarge(t *testing.T) {
	srv := serve(t, Limits{Max: 10}, nil, 0)
	if s := status(t, stall(t, srv.Listener.Addr().String(), 11, 11)); s != http.StatusRequestEntityTooLarge {
		t.Fatalf("%d, want 413", s)
	}
}

// TestReadAnnouncedLength: a small body of known length is read into one
// buffer of that size; a body shorter or longer than announced reads as
// io.ReadAll through http.MaxBytesReader would read it; and so under a
// budget.
func TestReadAnnouncedLength(t *testing.T) {
	const max = 64
	for _, tc := range []struct {
		name      string
		announced int64
		body      string
		want      string
		err       error
	}{
		{"exact", 5, "hello", "hello", nil},
		{"exact at the cap", max, strings.Repeat("x", max), strings.Repeat("x", max), nil},
		{"shorter", 10, "hello", "hello", nil},
		{"longer", 3, "hello", "hello", nil},
		{"longer past the cap", 3, strings.Repeat("x", max+1), "", ErrTooLarge},
		{"unknown", -1, "hello", "hello", nil},
		{"unknown past the cap", -1, strings.Repeat("x", max+1), "", ErrTooLarge},
		{"announced past the cap", max + 1, "x", "", ErrTooLarge},
		{"empty", 0, "", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, chunked := range []bool{false, true} {
				for _, budget := range []*Budget{nil, NewBudget(1 << 20)} {
					var body io.Reader = strings.NewReader(tc.body)
					if chunked {
						body = iotest.OneByteReader(body)
					}
					r := httptest.NewRequest(http.MethodPost, "/", io.NopCloser(body))
					r.ContentLength = tc.announced
					got, err := Read(httptest.NewRecorder(), r, Limits{Max: max, Budget: budget})
					if !errors.Is(err, tc.err) || string(got) != tc.want {
						t.Fatalf("chunked %v, budget %v: %q, %v; want %q, %v", chunked, budget != nil, got, err, tc.want, tc.err)
					}
				}
			}
		})
	}
}

// failingBody fails after its data.
type failingBody struct{ data string }

func (b *failingBody) Read(p []byte) (int, error) {
	if b.data == "" {
		return 0, errors.New("connection reset")
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	return n, nil
}

func TestReadAnnouncedLengthFails(t *testing.T) {
	for _, data := range []string{"", "hel", "hello"} {
		for _, budget := range []*Budget{nil, NewBudget(1 << 20)} {
			r := httptest.NewRequest(http.MethodPost, "/", io.NopCloser(&failingBody{data: data}))
			r.ContentLength = 5
			if _, err := Read(httptest.NewRecorder(), r, Limits{Max: 64, Budget: budget}); !errors.Is(err, ErrRead) {
				t.Errorf("%q, budget %v: %v, want ErrRead", data, budget != nil, err)
			}
		}
	}
}

// caddyServer serves Read as a handler behind Caddy's server does: the
// body wrapped in caddyhttp.IdleTimeoutReader with Caddy's default idle
// timeout (a minute, far longer than the limits under test), so the
// body's time limit is Read's own. After reading, the handler waits for
// hold and answers 500 if the request's context was canceled meanwhile
// (a read deadline left on the connection fails net/http's background
// read, which cancels it).
func caddyServer(t *testing.T, l Limits, hold time.Duration) *httptest.Server {
	return caddyServerStartedAgo(t, l, hold, 0)
}

// caddyServerStartedAgo is caddyServer whose Caddy took each request ago
// before the handler runs.
func caddyServerStartedAgo(t *testing.T, l Limits, hold, ago time.Duration) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		idle := &caddyhttp.IdleTimeoutReader{
			ReadCloser:    r.Body,
			Ctrl:          http.NewResponseController(w),
			Deadline:      caddyhttp.IdleDeadline{Start: time.Now().Add(-ago), Timeout: time.Minute},
			Logger:        zap.NewNop(),
			DrainDeadline: r.ContentLength != 0,
		}
		defer idle.HandlerDone()
		r.Body = idle
		_, err := Read(w, r, l)
		switch {
		case err == nil:
			time.Sleep(hold)
			if r.Context().Err() != nil {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusOK)
		case errors.Is(err, ErrTooLarge):
			w.WriteHeader(http.StatusRequestEntityTooLarge)
		case errors.Is(err, ErrTimeout):
			w.WriteHeader(http.StatusRequestTimeout)
		default:
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The deadline counts from when Caddy took the request (Started): an
// hour's timeout from an hour ago has passed, so a stalled body is answered
// at once, not after an hour.
func TestDeadlineCountsFromStart(t *testing.T) {
	srv := caddyServerStartedAgo(t, Limits{Max: 1 << 20, Timeout: time.Hour}, 0, time.Hour)
	c := stall(t, srv.Listener.Addr().String(), 1<<20, 1000)
	if s := status(t, c); s != http.StatusRequestTimeout {
		t.Fatalf("stalled body past Start+Timeout: %d, want 408", s)
	}
}

func TestStarted(t *testing.T) {
	caddyStart := time.Now().Add(-time.Second)
	for _, tc := range []struct {
		name      string
		idle      *caddyhttp.IdleTimeoutReader // nil: the body is not wrapped
		wantCaddy bool                         // Caddy's start, else about now
	}{
		{"Caddy's idle reader keeps the start", &caddyhttp.IdleTimeoutReader{Deadline: caddyhttp.IdleDeadline{Start: caddyStart}}, true},
		{"an idle reader without a start", &caddyhttp.IdleTimeoutReader{}, false},
		{"any other body", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", strings.NewReader("{}"))
			if tc.idle != nil {
				tc.idle.ReadCloser = r.Body
				r.Body = tc.idle
			}
			got := Started(r)
			if tc.wantCaddy != got.Equal(caddyStart) || (!tc.wantCaddy && time.Since(got) > time.Second/2) {
				t.Fatalf("start %v (Caddy's %v)", got, caddyStart)
			}
		})
	}
}

// TestBehindCaddyStalledBodyTimesOut: Caddy's idle reader would wait a
// minute for the next byte; Read's limit ends the body first.
func TestBehindCaddyStalledBodyTimesOut(t *testing.T) {
	srv := caddyServer(t, Limits{Max: 1 << 20, Timeout: 200 * time.Millisecond}, 0)
	c := stall(t, srv.Listener.Addr().String(), 1<<20, 1000)
	if s := status(t, c); s != http.StatusRequestTimeout {
		t.Fatalf("stalled body: %d, want 408", s)
	}
}

// TestBehindCaddyTrickleTimesOut: a sender that keeps Caddy's idle reader
// content with a byte now and then is still held to Read's limit on the
// whole body.
func TestBehindCaddyTrickleTimesOut(t *testing.T) {
	srv := caddyServer(t, Limits{Max: 1 << 20, Timeout: 300 * time.Millisecond}, 0)
	c := stall(t, srv.Listener.Addr().String(), 1000, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := c.Write([]byte("a")); err != nil {
					return
				}
			}
		}
	}()
	if s := status(t, c); s != http.StatusRequestTimeout {
		t.Fatalf("trickled body: %d, want 408", s)
	}
}

// TestBehindCaddyDeadlineLifted: once the body is in, no read deadline is
// left on the connection: a handler that works on past the limit keeps
// its request, and the connection serves the next request.
func TestBehindCaddyDeadlineLifted(t *testing.T) {
	srv := caddyServer(t, Limits{Max: 1 << 20, Timeout: 100 * time.Millisecond}, 300*time.Millisecond)
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for i := range 2 {
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d: no answer: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %d, want 200", i, resp.StatusCode)
		}
	}
}

// TestBehindCaddyTooLarge: the size cap holds on the idle reader's path
// too, for announced and unannounced lengths.
func TestBehindCaddyTooLarge(t *testing.T) {
	srv := caddyServer(t, Limits{Max: 10}, 0)
	if s := status(t, stall(t, srv.Listener.Addr().String(), 11, 11)); s != http.StatusRequestEntityTooLarge {
		t.Fatalf("%d, want 413", s)
	}
}

// Where the connection takes no read deadline (HTTP/2 streams on some
// servers), the timer that closes the body fires at the same deadline,
// counted from when Caddy took the request: an hour's timeout from an hour
// ago ends a stalled body at once.
func TestTimerDeadlineCountsFromStart(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.ProtoMajor, r.ContentLength = 2, 100
	w := httptest.NewRecorder() // takes no read deadline
	r.Body = &caddyhttp.IdleTimeoutReader{
		ReadCloser: pr,
		Ctrl:       http.NewResponseController(w),
		Deadline:   caddyhttp.IdleDeadline{Start: time.Now().Add(-time.Hour), Timeout: time.Minute},
		Logger:     zap.NewNop(),
	}
	done := make(chan error, 1)
	go func() {
		_, err := Read(w, r, Limits{Max: 1 << 20, Timeout: time.Hour})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("stalled body past Start+Timeout: %v, want ErrTimeout", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the timer counted the timeout from the read, not from the request's start")
	}
}
