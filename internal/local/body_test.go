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
	l.bodyTimeout = 2 * time.Second
	l.budget = bodyread.NewBudget(MaxDIDCommBody)
	srv := httptest.NewServer(http.HandlerFunc(l.ServeDIDComm))
	t.Cleanup(srv.Close)

	send := func(size int, sent string) net.Conn {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "POST /didcomm HTTP/1.1\r\nHost: x\r\nContent-Type: application/didcomm-envelope-enc\r\nContent-Length: %d\r\n\r\n%s", size, sent)
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
	// One sender announces a full-size envelope and stalls past half of
	// it: its buffer has grown to the full size, the whole budget. Small,
	// complete envelopes probe until they are refused (before the stalled
	// one is under way they are read, and get 400).
	stalled := send(MaxDIDCommBody, strings.Repeat("{", MaxDIDCommBody/2+1000))
	// Let the server read what it sent before any probe: a probe charged
	// first would get the stalled one refused (the order, not the budget,
	// is then what the test would see).
	time.Sleep(200 * time.Millisecond)
	refused := false
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if answer(send(2, "{}")) == http.StatusServiceUnavailable {
			refused = true
			break
		}
	}
	if !refused {
		t.Error("a sender past the budget was not refused with 503")
	}
	if s := answer(stalled); s != http.StatusRequestTimeout {
		t.Errorf("stalled sender got %d, want 408", s)
	}
	// Its share came back.
	if s := answer(send(2, "{}")); s != http.StatusBadRequest {
		t.Errorf("after the stalled sender: %d, want 400 (read, not an envelope)", s)
	}
}

// TestServeDIDCommIdleSendersHoldNoBudget: the in-flight budget is charged
// as envelope bytes arrive, not by the announced Content-Length. More
// senders than the process-wide budget holds at full size announce a
// full-size envelope and send nothing; a complete envelope meanwhile is
// still read (400: not an envelope), not refused with 503. (Charged by the
// announcement, sixteen such requests, about 2 KB per body timeout, held
// the budget of every DIDComm endpoint of the process.)
func TestServeDIDCommIdleSendersHoldNoBudget(t *testing.T) {
	l, _ := provision(t, `{"public_url":"https://verifier.example.com","storage":"STORAGE"}`)
	t.Cleanup(func() { _ = l.Cleanup() })
	srv := httptest.NewServer(http.HandlerFunc(l.ServeDIDComm))
	t.Cleanup(srv.Close)
	dial := func() net.Conn {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	for range MaxInflightDIDCommBytes/MaxDIDCommBody + 1 {
		fmt.Fprintf(dial(), "POST /didcomm HTTP/1.1\r\nHost: x\r\nContent-Type: application/didcomm-envelope-enc\r\nContent-Length: %d\r\n\r\n", MaxDIDCommBody)
	}
	// Let the server take their headers (and, charged by the
	// announcement, the budget) first.
	time.Sleep(300 * time.Millisecond)
	honest := dial()
	fmt.Fprintf(honest, "POST /didcomm HTTP/1.1\r\nHost: x\r\nContent-Type: application/didcomm-envelope-enc\r\nContent-Length: 2\r\n\r\n{}")
	_ = honest.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(honest), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a complete envelope beside idle senders: %d, want 400 (read, not an envelope)", resp.StatusCode)
	}
}
