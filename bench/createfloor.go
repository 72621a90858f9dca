package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"sync/atomic"

	"github.com/caddyserver/caddy/v2"
	cf "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/certmagic"
	"github.com/google/uuid"
)

func init() {
	caddy.RegisterModule(new(createFloorHandler))
	httpcaddyfile.RegisterHandlerDirective("bench_create_floor", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		f := new(createFloorHandler)
		return f, f.UnmarshalCaddyfile(h.Dispenser)
	})
}

// createFloorHandler is the least a Caddy handler can do to answer a
// local create as proofgate does while writing one file per record: read
// the body, store one document of a record's size under a new key in the
// site's Caddy storage (one durable write, the storage call proofgate's
// records take with cluster or another storage module), and send the
// create's status, headers and bytes, with nothing looked at in between.
// It exists in the bench only: the most any handler that takes this
// request, writes a file of its own for it and sends this answer can
// reach; it over the durable-write ceiling is what the HTTP exchange adds
// to a bare write. A single proofgate instance on file_system storage
// group-commits its records to the record journal instead, so its creates
// can pass this floor.
type createFloorHandler struct {
	// AnswerFile holds the answer to send and the document to store
	// (createFloorAnswer as JSON). The bench writes it from its first
	// local create, after the server has started and before any load.
	AnswerFile string `json:"answer_file"`

	storage certmagic.Storage
	answer  atomic.Pointer[createFloorAnswer]
}

// createFloorAnswer is a local create's answer and its stored record.
type createFloorAnswer struct {
	answer
	Record []byte `json:"record"`
}

// CaddyModule returns the Caddy module information.
func (*createFloorHandler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.bench_create_floor", New: func() caddy.Module { return new(createFloorHandler) }}
}

// UnmarshalCaddyfile takes the answer file in a block (a path as the
// directive's first argument would be taken for a path matcher):
//
//	bench_create_floor {
//		answer_file <path>
//	}
func (f *createFloorHandler) UnmarshalCaddyfile(d *cf.Dispenser) error {
	d.Next()
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		if d.Val() != "answer_file" || !d.Args(&f.AnswerFile) || d.NextArg() {
			return d.Errf("want answer_file <path>, not %s", d.Val())
		}
	}
	if f.AnswerFile == "" {
		return d.Err("answer_file is required")
	}
	return nil
}

// Provision takes the site's storage, as proofgate's local backend does.
func (f *createFloorHandler) Provision(ctx caddy.Context) error {
	f.storage = ctx.Storage()
	return nil
}

// load reads the answer file once; until the bench has written it, the
// floor answers 503.
func (f *createFloorHandler) load() (*createFloorAnswer, error) {
	if a := f.answer.Load(); a != nil {
		return a, nil
	}
	b, err := os.ReadFile(f.AnswerFile)
	if err != nil {
		return nil, err
	}
	a := new(createFloorAnswer)
	if err := json.Unmarshal(b, a); err != nil {
		return nil, fmt.Errorf("%s: %v", f.AnswerFile, err)
	}
	f.answer.Store(a)
	return a, nil
}

func (f *createFloorHandler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	a, err := f.load()
	if err != nil {
		return caddyhttp.Error(http.StatusServiceUnavailable, err)
	}
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		return caddyhttp.Error(http.StatusBadRequest, err)
	}
	if err := f.storage.Store(r.Context(), "bench-floor/records/"+uuid.NewString()+".json", a.Record); err != nil {
		return caddyhttp.Error(http.StatusServiceUnavailable, err)
	}
	h := w.Header()
	for k, v := range a.Header {
		h[k] = v[:len(v):len(v)]
	}
	w.WriteHeader(a.Status)
	_, err = w.Write(a.Body)
	return err
}

// sameShape checks that two answers to a create could stand for each
// other on the wire: the same status and headers, and bodies whose
// lengths differ by at most 1% (a create's ids and nonce differ from one
// to the next, and so may their lengths by a digit or two).
func sameShape(a, b *answer) error {
	ha, hb := a.Header.Clone(), b.Header.Clone()
	ha.Del("Content-Length")
	hb.Del("Content-Length")
	la, lb := len(a.Body), len(b.Body)
	if a.Status != b.Status || !maps.EqualFunc(ha, hb, slices.Equal[[]string]) || 100*abs(la-lb) > max(la, lb) {
		return fmt.Errorf("answers differ: %d %v (%d bytes) and %d %v (%d bytes)", a.Status, ha, la, b.Status, hb, lb)
	}
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*createFloorHandler)(nil)
	_ caddyhttp.MiddlewareHandler = (*createFloorHandler)(nil)
	_ cf.Unmarshaler              = (*createFloorHandler)(nil)
)
