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

func serve(t *testing.T, l Limits, started chan<- struct{}) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if started != nil {
			r.Body = &signalBody{ReadCloser: r.Body, started: started}
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

// signalBody tells when the handler first reads the body: the budget was
// taken by then.
type signalBody struct {
	io.ReadCloser
	started chan<- struct{}
	once    bool
}

func (b *signalBody) Read(p []byte) (int, error) {
	if !b.once {
		b.once = true
		b.started <- struct{}{}
	}
	return b.ReadCloser.Read(p)
}

func TestStalledBodyTimesOut(t *testing.T) {
	srv := serve(t, Limits{Max: 1 << 20, Timeout: 200 * time.Millisecond}, nil)
	c := stall(t, srv.Listener.Addr().String(), 1<<20, 1000)
	if s := status(t, c); s != http.StatusRequestTimeout {
		t.Fatalf("stalled body: %d, want 408", s)
	}
}

func TestBudgetRefusesPastTheBound(t *testing.T) {
	started := make(chan struct{}, 8)
	srv := serve(t, Limits{Max: 1 << 20, Timeout: 5 * time.Second, Budget: NewBudget(2 << 20)}, started)
	addr := srv.Listener.Addr().String()
	held := []net.Conn{stall(t, addr, 1<<20, 100), stall(t, addr, 1<<20, 100)}
	for range held {
		<-started
	}
	// The budget holds two full-size bodies: a third sender is refused at
	// once, and so is one that announces no length (it could send Max).
	if s := status(t, stall(t, addr, 1<<20, 100)); s != http.StatusServiceUnavailable {
		t.Fatalf("third stalled body: %d, want 503", s)
	}
	// Small bodies still fit? No: the two stalled ones took it all.
	if s := status(t, stall(t, addr, 10, 10)); s != http.StatusServiceUnavailable {
		t.Fatalf("small body while the budget is spent: %d, want 503", s)
	}
	// When a stalled sender goes, its share returns.
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

func TestTooLarge(t *testing.T) {
	srv := serve(t, Limits{Max: 10}, nil)
	if s := status(t, stall(t, srv.Listener.Addr().String(), 11, 11)); s != http.StatusRequestEntityTooLarge {
		t.Fatalf("%d, want 413", s)
	}
}

// TestReadAnnouncedLength: a small body of known length is read into one
// buffer of that size; a body shorter or longer than announced reads as
// io.ReadAll through http.MaxBytesReader would read it.
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
				var body io.Reader = strings.NewReader(tc.body)
				if chunked {
					body = iotest.OneByteReader(body)
				}
				r := httptest.NewRequest(http.MethodPost, "/", io.NopCloser(body))
				r.ContentLength = tc.announced
				got, err := Read(httptest.NewRecorder(), r, Limits{Max: max})
				if !errors.Is(err, tc.err) || string(got) != tc.want {
					t.Fatalf("chunked %v: %q, %v; want %q, %v", chunked, got, err, tc.want, tc.err)
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
		r := httptest.NewRequest(http.MethodPost, "/", io.NopCloser(&failingBody{data: data}))
		r.ContentLength = 5
		if _, err := Read(httptest.NewRecorder(), r, Limits{Max: 64}); !errors.Is(err, ErrRead) {
			t.Errorf("%q: %v, want ErrRead", data, err)
		}
	}
}
