package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

// callURLByString makes a call's URL the plain way, as the client did
// before callURL: formatted, then parsed again by http.NewRequest. (It
// then set Path to the escaped req.Path too, so that String escaped the
// caller's escapes again; TestCallURLEscapesOnce holds callURL to the
// agent's view.)
func callURLByString(base *url.URL, req Request) (*url.URL, error) {
	p, err := url.PathUnescape(req.Path)
	if err != nil {
		return nil, err
	}
	u := *base
	u.Path = strings.TrimSuffix(base.Path, "/") + p
	u.RawPath = strings.TrimSuffix(base.EscapedPath(), "/") + req.Path
	u.RawQuery = req.Query.Encode()
	if req.RawQuery != "" {
		u.RawQuery = req.RawQuery
	}
	return url.Parse(u.String())
}

var urlCases = []struct {
	base string
	req  Request
}{
	{"http://127.0.0.1:3000", Request{Path: "/didcomm/proofs/create-request-oob"}},
	{"http://127.0.0.1:3000/", Request{Path: "/didcomm/proofs", Query: url.Values{"threadId": {"7e0b0a5c-2f0d-4d44-9a5f-0e5b6f5c2b11"}}}},
	{"http://127.0.0.1:3000/", Request{Path: "/didcomm/proofs", RawQuery: "threadId=" + url.QueryEscape("7e0b0a5c-2f0d-4d44 &=")}},
	{"https://agent.example/admin/", Request{Path: "/present-proof-2.0/records/" + url.PathEscape("a/b c%") + "/verify-presentation"}},
	{"http://[::1]:8031/pre%2Ffix", Request{Path: "/multitenancy/wallet/" + url.PathEscape("wället") + "/token"}},
	{"http://agent.example:/x y", Request{Path: "/out-of-band/create-invitation", Query: url.Values{"a": {"1 2", "&"}, "b": {""}}}},
	{"http://agent.example", Request{Path: "/proofs/$&+,:;=@-_.~"}},
	{"http://agent.example/a;b", Request{Path: "/multi-tenancy/proofs/" + url.PathEscape("t?#")}},
}

// TestCallURL: the URL built directly is the one the string round trip
// made, field for field.
func TestCallURL(t *testing.T) {
	for _, tc := range urlCases {
		base, err := url.Parse(tc.base)
		if err != nil {
			t.Fatal(err)
		}
		c := NewClient(base, nil, 0, 0, nil)
		got, err := c.callURL(tc.req)
		want, wantErr := callURLByString(base, tc.req)
		if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s + %s: %#v (%v), want %#v (%v)", tc.base, tc.req.Path, got, err, want, wantErr)
		}
	}
}

// TestCallURLEscapesOnce: a path segment the caller escaped once
// (url.PathEscape) reaches the agent escaped exactly once, on the plain
// path's side and behind a base path that needs escaping, and the agent
// reads back the caller's segment. A path that is not validly escaped is
// a caller's bug: nothing is sent.
func TestCallURLEscapesOnce(t *testing.T) {
	uris := make(chan string, 1)
	segs := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uris <- r.RequestURI
		parts := strings.Split(r.URL.EscapedPath(), "/")
		seg, err := url.PathUnescape(parts[len(parts)-2]) // …/<segment>/token
		if err != nil {
			seg = "unescape: " + err.Error()
		}
		segs <- seg
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	for _, prefix := range []string{"", "/admin", "/pre%2Ffix", "/x%20y"} {
		base, err := url.Parse(srv.URL + prefix + "/")
		if err != nil {
			t.Fatal(err)
		}
		c := NewClient(base, http.DefaultTransport, time.Minute, 0, nil)
		for _, seg := range []string{
			"t 1/x", "a%b", "100%", "%2F", "wället", "日本", "a+b", "a b+c/d%e", "x?y#z", "plain-id_1.2~",
		} {
			path := "/multitenancy/wallet/" + url.PathEscape(seg) + "/token"
			req := Request{Method: http.MethodGet, Path: path, RawQuery: "a=1"}
			if _, err := c.Do(context.Background(), req); err != nil {
				t.Fatalf("%s %q: %v", prefix, seg, err)
			}
			if got, want := <-uris, prefix+path+"?a=1"; got != want {
				t.Errorf("segment %q behind %q: the agent got %s, want %s", seg, prefix, got, want)
			}
			if got := <-segs; got != seg {
				t.Errorf("segment %q behind %q: the agent read %q", seg, prefix, got)
			}
		}
	}

	base, _ := url.Parse(srv.URL)
	c := NewClient(base, http.DefaultTransport, time.Minute, 0, nil)
	if _, err := c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/records/50%zz", Idempotent: true}); err == nil {
		t.Error("a path with an invalid escape was sent")
	}
	select {
	case uri := <-uris:
		t.Errorf("the agent got %s", uri)
	default:
	}
}

// TestRequestOnTheWire: what the agent receives from Client.Do is what the
// request made with http.NewRequestWithContext sent, byte for byte (the
// request line, Host, headers, body), on every attempt.
func TestRequestOnTheWire(t *testing.T) {
	dumps := make(chan []byte, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, err := httputil.DumpRequest(r, true)
		if err != nil {
			t.Error(err)
		}
		dumps <- d
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	for _, tc := range urlCases {
		for _, body := range [][]byte{nil, {}, []byte(`{"a":"<b>"}`)} {
			base, _ := url.Parse(tc.base)
			base.Scheme, base.Host = "http", strings.TrimPrefix(srv.URL, "http://")
			req := tc.req
			req.Method = http.MethodPost
			req.Header = http.Header{"Authorization": {"Bearer t"}, "X-Api-Key": {"k"}}
			req.JSON = body

			// Before: the URL's string parsed by NewRequestWithContext.
			u, err := callURLByString(base, req)
			if err != nil {
				t.Fatal(err)
			}
			var rd io.Reader
			if body != nil {
				rd = bytes.NewReader(body)
			}
			hr, err := http.NewRequestWithContext(context.Background(), req.Method, u.String(), rd)
			if err != nil {
				t.Fatal(err)
			}
			for k, vs := range req.Header {
				hr.Header[k] = vs
			}
			hr.Header.Set("Accept", "application/json")
			if body != nil {
				hr.Header.Set("Content-Type", "application/json")
			}
			resp, err := http.DefaultTransport.RoundTrip(hr)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := <-dumps

			c := NewClient(base, http.DefaultTransport, time.Minute, 0, nil)
			if _, err := c.Do(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if got := <-dumps; !bytes.Equal(got, want) {
				t.Errorf("%s %s with body %q:\n got %q\nwant %q", base, req.Path, body, got, want)
			}
		}
	}
}

// TestReadBody: readBody reads what io.ReadAll(io.LimitReader(r, max+1))
// reads, whatever size is announced.
func TestReadBody(t *testing.T) {
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 10000} {
		data := bytes.Repeat([]byte("x"), n)
		for _, max := range []int64{0, 1, 100, 4096, 1 << 20} {
			want, _ := io.ReadAll(io.LimitReader(bytes.NewReader(data), max+1))
			for _, size := range []int64{-1, 0, int64(n), int64(n) + 5, int64(n) / 2, 1 << 30} {
				got, err := readBody(iotestHalfReader{bytes.NewReader(data)}, size, max)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("n %d max %d size %d: %d bytes, %v; want %d", n, max, size, len(got), err, len(want))
				}
			}
		}
	}
}

// iotestHalfReader reads at most half of what is asked (at least one
// byte), as a network body may.
type iotestHalfReader struct{ r io.Reader }

func (h iotestHalfReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:len(p)/2]
	}
	return h.r.Read(p)
}

// TestBodyEncoding: Body is sent as json.Marshal writes it; JSON as given.
func TestBodyEncoding(t *testing.T) {
	bodies := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- b
	}))
	defer srv.Close()
	base, _ := url.Parse(srv.URL)
	c := NewClient(base, http.DefaultTransport, time.Minute, 0, nil)
	v := map[string]any{"b": "<&>", "a": 1}
	want, _ := json.Marshal(v)
	for _, req := range []Request{{Body: v}, {JSON: want}, {JSON: want, Body: "ignored"}} {
		req.Method, req.Path = http.MethodPost, "/x"
		if _, err := c.Do(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if got := <-bodies; !bytes.Equal(got, want) {
			t.Errorf("sent %s, want %s", got, want)
		}
	}
}
