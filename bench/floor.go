package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"

	"github.com/caddyserver/caddy/v2"
	cf "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// floorAnswer is proofgate's answer to the bench's badRequest body, byte
// for byte; sameAnswer checks before any load that it still is.
const floorAnswer = `{"statusCode":400,"error":"Bad Request","message":["isShortenUrl: must be a boolean","proofFormats.indy.name: is required","proofFormats.indy.version: is required: a dotted version like \"1.0\"","proofFormats.indy: must request at least one attribute (requested_attributes) or predicate (requested_predicates)"]}`

func init() {
	caddy.RegisterModule(floorHandler{})
	httpcaddyfile.RegisterHandlerDirective("bench_floor", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		f := new(floorHandler)
		return f, f.UnmarshalCaddyfile(h.Dispenser)
	})
	// Ordered as proofgate is, so that its site compiles to the same chain
	// as proofgate's (the handler, then respond), with no route around it.
	httpcaddyfile.RegisterDirectiveOrder("bench_floor", httpcaddyfile.Before, "respond")
}

// floorHandler is the least a Caddy handler can do to answer the 400's
// request as proofgate does: read the body to its end, then write the same
// status, headers and bytes, with nothing looked at in between. It exists
// in the bench only, as the reference that separates what any handler
// pays to take this request and send this answer (Caddy, net/http, the
// kernel, the load generator) from what proofgate's work adds: the key
// check, validation, the error's assembly, the log line and the metrics.
type floorHandler struct{}

// CaddyModule returns the Caddy module information.
func (floorHandler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.bench_floor", New: func() caddy.Module { return new(floorHandler) }}
}

// UnmarshalCaddyfile takes the directive without arguments.
func (f *floorHandler) UnmarshalCaddyfile(d *cf.Dispenser) error {
	d.Next()
	if d.NextArg() {
		return d.ArgErr()
	}
	return nil
}

func (floorHandler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	// The read buffer is pooled: one on the stack would escape (the body
	// is an interface) and cost an allocation a request proofgate's 400
	// does not make.
	buf := floorBufs.Get().(*[512]byte)
	defer floorBufs.Put(buf)
	if r.ContentLength > 0 && r.ContentLength <= int64(len(buf)) {
		if _, err := io.ReadFull(r.Body, buf[:r.ContentLength]); err != nil {
			return caddyhttp.Error(http.StatusBadRequest, err)
		}
	} else if _, err := io.Copy(io.Discard, r.Body); err != nil {
		return caddyhttp.Error(http.StatusBadRequest, err)
	}
	// The headers proofgate sets on an answer this small; net/http adds
	// Content-Length for both.
	h := w.Header()
	h["Content-Type"] = floorHeaders[0:1:1]
	h["Cache-Control"] = floorHeaders[1:2:2]
	h["X-Content-Type-Options"] = floorHeaders[2:3:3]
	w.WriteHeader(http.StatusBadRequest)
	_, err := w.Write(floorAnswerBytes) // not WriteString: w has no WriteString, which would copy it
	return err
}

var (
	floorHeaders     = []string{"application/json; charset=utf-8", "no-store", "nosniff"}
	floorAnswerBytes = []byte(floorAnswer)
	floorBufs        = sync.Pool{New: func() any { return new([512]byte) }}
)

// answer is an HTTP answer as the bench compares them: Date left out.
type answer struct {
	Status int         `json:"status"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// fetchAnswer sends t once and returns its answer.
func fetchAnswer(client *http.Client, t target) (*answer, error) {
	req, err := newRequest(t.Method, t.URL, t.Header, t.Body)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Header.Del("Date")
	return &answer{Status: resp.StatusCode, Header: resp.Header, Body: body}, err
}

// sameAnswer checks that a and b answer alike: status, headers (but Date)
// and body, so that one is a fair reference for the other.
func sameAnswer(client *http.Client, a, b target) error {
	x, err := fetchAnswer(client, a)
	if err != nil {
		return err
	}
	y, err := fetchAnswer(client, b)
	if err != nil {
		return err
	}
	if x.Status != y.Status || !bytes.Equal(x.Body, y.Body) || !maps.EqualFunc(x.Header, y.Header, slices.Equal[[]string]) {
		return fmt.Errorf("%s and %s answer differently:\n%d %v %s\n%d %v %s", a.Name, b.Name, x.Status, x.Header, x.Body, y.Status, y.Header, y.Body)
	}
	return nil
}

// Interface guards.
var (
	_ caddyhttp.MiddlewareHandler = floorHandler{}
	_ cf.Unmarshaler              = (*floorHandler)(nil)
)
