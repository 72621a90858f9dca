package local

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/bodyread"
)

// TestServeDIDCommStalledBodies: the endpoint takes no credentials, so a
// sender that stalls mid-envelope is cut off after the body timeout, and
// senders past the in-flight budget are refused at once (503) instead of
// each holding a buffer.
func TestServeDIDCommStalledBodies(t *testing.T) {
	l, _ := provision(t, `{"public_url":"https://verifier.example.com","storage":"STORAGE"}`)
	t.Cleanup(func() { _ = l.Cleanup() })
	l.bodyTimeout = 300 * time.Millisecond
	l.budget = bodyread.NewBudget(MaxDIDCommBody)
	srv := httptest.NewServer(http.HandlerFunc(l.ServeDIDComm))
	t.Cleanup(srv.Close)

	open := func() net.Conn {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "POST /didcomm HTTP/1.1\r\nHost: x\r\nContent-Type: application/didcomm-envelope-enc\r\nContent-Length: %d\r\n\r\n%s",
			MaxDIDCommBody, strings.Repeat("{", 1000))
		return c
	}
	answer := func(c net.Conn) int {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	first := open()
	// The first holds the whole budget until its deadline: a second is
	// refused while it lasts (retried until the first surely started).
	var second int
	for range 50 {
		if second = answer(open()); second == http.StatusServiceUnavailable {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if second != http.StatusServiceUnavailable {
		t.Errorf("a sender past the budget got %d, want 503", second)
	}
	if s := answer(first); s != http.StatusRequestTimeout {
		t.Errorf("stalled sender got %d, want 408", s)
	}
}
