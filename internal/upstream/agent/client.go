// Package agent is what the upstream backends share: an HTTP client for one
// agent's admin API (timeouts, capped reads, safe retries), the mapping of
// what went wrong to the backend package's typed errors, per-tenant token
// caching, and the record → org ownership kept in Caddy storage.
package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/metrics"
)

// Defaults for Client.
const (
	DefaultTimeout         = 15 * time.Second
	DefaultMaxResponseSize = 4 << 20 // 4 MiB: a proof record with a presentation is a few KiB
	maxDialAttempts        = 3
	maxIdempotentAttempts  = 3
)

// Client calls one agent's HTTP API. It is safe for concurrent use; the
// connection pool lives in its transport.
type Client struct {
	base    *url.URL
	rt      http.RoundTripper
	timeout time.Duration
	maxBody int64
	logger  *zap.Logger
	// agent names the agent in the metrics (AgentID); the base URL when
	// not set.
	agent string
	// backoff is the pause before retry n (1-based); tests shorten it.
	backoff func(n int) time.Duration
	// callBase is the context every call's context starts from (detach):
	// a replacer and nothing else. The transport only reads the replacer
	// (TLS server_name placeholders), so one is shared instead of a new
	// one per call.
	callBase context.Context
	// host is the Host of every request, as http.NewRequest derives it
	// from the base URL.
	host string
	// basePath and baseRawPath are the base URL's path and escaped path
	// without a trailing slash; plainBase says the path needs no escaping
	// (callURL).
	basePath, baseRawPath string
	plainBase             bool
}

// Agent names the agent the client calls: its type and url (AgentID), as
// its metrics and the owners of the records made through it name it.
func (c *Client) Agent() string { return c.agent }

// NewClient returns a Client for the agent at base. rt carries the
// connections (Caddy's reverseproxy.HTTPTransport in production); timeout
// bounds each call, maxBody each response read.
func NewClient(base *url.URL, rt http.RoundTripper, timeout time.Duration, maxBody int64, logger *zap.Logger) *Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if maxBody <= 0 {
		maxBody = DefaultMaxResponseSize
	}
	if logger == nil {
		logger = zap.NewNop()
	}
	host := base.Host
	if r, err := http.NewRequest(http.MethodGet, base.String(), nil); err == nil {
		host = r.Host
	}
	basePath := strings.TrimSuffix(base.Path, "/")
	return &Client{
		base: base, rt: rt, timeout: timeout, maxBody: maxBody, logger: logger,
		backoff:     func(n int) time.Duration { return time.Duration(n) * 50 * time.Millisecond },
		callBase:    context.WithValue(context.Background(), caddy.ReplacerCtxKey, caddy.NewReplacer()),
		host:        host,
		basePath:    basePath,
		baseRawPath: strings.TrimSuffix(base.EscapedPath(), "/"),
		plainBase:   base.RawPath == "" && plainPath(basePath),
	}
}

// Base returns the agent's base URL.
func (c *Client) Base() *url.URL { return c.base }

// Logger returns the client's logger.
func (c *Client) Logger() *zap.Logger { return c.logger }

// Request is one call to the agent.
type Request struct {
	Method string
	// Path is relative to the base URL, starts with "/", and has every
	// caller-supplied segment escaped (url.PathEscape).
	Path  string
	Query url.Values
	// RawQuery is a query already encoded, sent instead of Query: a hot
	// call with one parameter need not build a map and sort it.
	RawQuery string
	// Header is only read (Do copies it, for DoTenant too), so a backend may
	// pass one map to every call.
	Header http.Header
	// Body is sent as JSON when not nil.
	Body any
	// JSON is a body already encoded (compact JSON), sent instead of Body:
	// the backends write their hot requests by hand.
	JSON []byte
	// Idempotent calls are retried after any transport error; the others
	// only when the connection was never made (a dial error), because only
	// then is it certain the agent did not act on them.
	Idempotent bool

	// credential adds the call's credential to the headers Do builds
	// (DoTenant's token), so that a call makes one header map, not two.
	credential func(http.Header)
}

// Response is the agent's answer, whatever its status.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends req and returns the agent's response, whatever its status.
// Transport failures come back as backend errors: ErrTimeout,
// ErrUnavailable (the agent could not be reached), or *UpstreamError
// (the connection failed mid-call or the answer was unreadable).
func (c *Client) Do(ctx context.Context, req Request) (*Response, error) {
	if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		// The caller went away: no call is started for nobody (detach
		// cancels its own context only after a moment, in a goroutine).
		return nil, err
	}
	body := req.JSON
	if body == nil && req.Body != nil {
		var err error
		if body, err = json.Marshal(req.Body); err != nil {
			return nil, fmt.Errorf("encoding request to agent: %w", err)
		}
	}
	u, err := c.callURL(req)
	if err != nil {
		// A path that is not validly escaped: a caller's bug, not the
		// agent's, so nothing is sent or retried.
		return nil, err
	}
	// The transport only reads the headers, so every attempt sends the
	// same map.
	hdr := make(http.Header, len(req.Header)+3)
	for k, vs := range req.Header {
		hdr[k] = vs
	}
	hdr["Accept"] = jsonType
	if body != nil {
		hdr["Content-Type"] = jsonType
	}
	if req.credential != nil {
		req.credential(hdr)
	}

	callCtx, cancel := detach(ctx, c.callBase, c.timeout)
	defer cancel()

	for attempt := 1; ; attempt++ {
		began := time.Now()
		resp, err := c.once(callCtx, req.Method, u, hdr, body)
		c.observe(req, resp, err, time.Since(began))
		if err == nil {
			return resp, nil
		}
		if cerr := ctx.Err(); cerr != nil && !errors.Is(cerr, context.DeadlineExceeded) {
			return nil, cerr // the caller went away; nobody reads the answer
		}
		if errors.Is(err, errTooLarge) {
			c.logger.Warn("agent answer exceeds max_response_size",
				zap.String("method", req.Method), zap.String("path", req.Path), zap.Int64("max", c.maxBody))
			return nil, &backend.UpstreamError{Status: resp.Status, Message: "the agent's answer is too large"}
		}
		dial := isDialError(err)
		if callCtx.Err() != nil || (!dial && isTimeout(err)) {
			c.logger.Warn("agent call timed out",
				zap.String("method", req.Method), zap.String("path", req.Path), zap.Duration("timeout", c.timeout))
			return nil, backend.ErrTimeout
		}
		retry := (dial && attempt < maxDialAttempts) || (req.Idempotent && attempt < maxIdempotentAttempts)
		c.logger.Warn("agent call failed",
			zap.String("method", req.Method), zap.String("path", req.Path),
			zap.Int("attempt", attempt), zap.Bool("retrying", retry), zap.Error(err))
		if !retry {
			if dial {
				return nil, backend.ErrUnavailable
			}
			return nil, &backend.UpstreamError{Message: "the connection to the agent failed"}
		}
		t := time.NewTimer(c.backoff(attempt))
		select {
		case <-callCtx.Done():
			t.Stop()
			if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, ctx.Err()
			}
			return nil, backend.ErrTimeout
		case <-t.C:
		}
	}
}

// observe records one attempt in the agent-call metrics.
func (c *Client) observe(req Request, resp *Response, err error, d time.Duration) {
	agent := c.agent
	if agent == "" {
		agent = c.base.Redacted()
	}
	status := 0
	if resp != nil && (err == nil || errors.Is(err, errTooLarge)) {
		status = resp.Status
	}
	metrics.ObserveAgentCall(agent, req.Method, req.Path, status, d)
}

// jsonType is the value of the Accept and Content-Type headers: shared
// by every request, which the transport only reads.
var jsonType = []string{"application/json"}

// callURL is the URL of req: the base URL's path, then req.Path and the
// query. It is the URL http.NewRequest would parse from its string form,
// built directly where the path needs no escaping (the calls proofgate
// makes), through the string elsewhere. req.Path is already escaped, so
// it is sent as it is: a segment escaped once by the caller reaches the
// agent escaped once.
func (c *Client) callURL(req Request) (*url.URL, error) {
	u := *c.base
	u.RawQuery = req.RawQuery
	if u.RawQuery == "" {
		u.RawQuery = req.Query.Encode()
	}
	if c.plainBase && plainPath(req.Path) {
		u.Path = c.basePath + req.Path // the same escaped and unescaped
		u.RawPath = ""                 // as url.Parse leaves it for a path without escapes
		return &u, nil
	}
	// Path is the unescaped form of RawPath, as url.URL wants them: with
	// the escaped path in Path (the old way), String escaped it again
	// ("t%201" went out as "t%25201").
	p, err := url.PathUnescape(req.Path)
	if err != nil {
		return nil, fmt.Errorf("agent call path %q: %w", req.Path, err)
	}
	u.Path = c.basePath + p
	u.RawPath = c.baseRawPath + req.Path
	return url.Parse(u.String())
}

// plainPath tells whether p is written the same escaped and unescaped:
// only bytes a URL path holds as they are.
func plainPath(p string) bool {
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-_.~$&+,/:;=@", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// once makes one attempt: the request http.NewRequestWithContext would
// make of it, without formatting and parsing the URL again.
func (c *Client) once(ctx context.Context, method string, u *url.URL, hdr http.Header, body []byte) (*Response, error) {
	hr := &http.Request{
		Method: method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: hdr, Host: c.host,
	}
	if body != nil {
		hr.ContentLength = int64(len(body))
		hr.Body, hr.GetBody = http.NoBody, func() (io.ReadCloser, error) { return http.NoBody, nil }
		if len(body) > 0 {
			hr.Body = io.NopCloser(bytes.NewReader(body))
			hr.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
	}
	resp, err := c.rt.RoundTrip(hr.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := readBody(resp.Body, resp.ContentLength, c.maxBody)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > c.maxBody {
		// Not retried as a transport error would be: the agent acted.
		return &Response{Status: resp.StatusCode, Header: resp.Header}, errTooLarge
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// readBody reads r to its end, or up to max+1 bytes: what
// io.ReadAll(io.LimitReader(r, max+1)) reads, into one buffer of the
// announced size (size < 0: unknown) where io.ReadAll would grow one from
// 512 bytes. An announced size above max allocates max+1 bytes at most.
func readBody(r io.Reader, size, max int64) ([]byte, error) {
	n := int64(512)
	if size >= 0 {
		n = min(size, max) + 1 // +1: the read that finds the end
	}
	b := make([]byte, 0, n)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		room := b[len(b):cap(b)]
		if left := max + 1 - int64(len(b)); int64(len(room)) > left {
			room = room[:left]
		}
		m, err := r.Read(room)
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if int64(len(b)) > max {
			return b, nil // the limit reached: io.LimitReader's EOF
		}
	}
}

var errTooLarge = errors.New("agent response exceeds max_response_size")

// detach gives the outgoing call a context of its own: the caller's
// cancellation and deadline, our timeout, and base's values (the client's
// Caddy replacer: the transport needs one for TLS server_name
// placeholders), but none of the incoming request's Caddy variables, which
// the transport would otherwise read as reverse_proxy dial instructions.
func detach(parent, base context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(base, timeout)
	stop := context.AfterFunc(parent, cancel)
	return ctx, func() { stop(); cancel() }
}

func isDialError(err error) bool {
	var de reverseproxy.DialError
	if errors.As(err, &de) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
