package agent

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/benchutil"
)

// cannedAgent answers every request with body, after writing the request
// out as the HTTP/1.1 transport would (headers, body), so that a
// benchmark of Client.Do pays what the transport pays for what the client
// hands it, without a network.
// The transport writes into a buffer of the connection's: w is that
// (benchmarks call it from one goroutine).
type cannedAgent struct {
	body []byte
	w    *bufio.Writer
}

func (a cannedAgent) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Write(a.w); err != nil {
		return nil, err
	}
	return &http.Response{
		StatusCode: http.StatusOK, ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Content-Length": {strconv.Itoa(len(a.body))}},
		Body:          io.NopCloser(bytes.NewReader(a.body)),
		ContentLength: int64(len(a.body)),
	}, nil
}

// BenchmarkClientCalls is the client's own cost of a credo create's two
// calls (a POST with a JSON body, a GET with a query), each with a bearer
// token as credo's do sends them, answered by a canned 2 KiB body.
func BenchmarkClientCalls(b *testing.B) {
	base, _ := url.Parse("http://127.0.0.1:3000")
	c := NewClient(base, cannedAgent{body: bytes.Repeat([]byte("x"), 2048), w: bufio.NewWriter(io.Discard)}, time.Minute, 0, nil)
	tokens := NewTokens(map[string]string{"": "eyJhbGciOiJIUzI1NiJ9.e30.sig"}, nil)
	set := func(h http.Header, tok string) { h.Set("Authorization", "Bearer "+tok) }
	body := map[string]any{"protocolVersion": "v2", "proofFormats": map[string]any{"indy": map[string]any{"name": "proof", "version": "1.0"}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		if _, err := c.DoTenant(ctx, Request{Method: http.MethodPost, Path: "/didcomm/proofs/create-request-oob", Body: body}, tokens, "", set); err != nil {
			b.Fatal(err)
		}
		q := "threadId=" + url.QueryEscape("7e0b0a5c-2f0d-4d44-9a5f-0e5b6f5c2b11") // as credo's findByThread
		if _, err := c.DoTenant(ctx, Request{Method: http.MethodGet, Path: "/didcomm/proofs", RawQuery: q, Idempotent: true}, tokens, "", set); err != nil {
			b.Fatal(err)
		}
	}
}
