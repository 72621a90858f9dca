package proofgate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/proofgate/proofgate/handlers"
	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/auth/apikey"
	"github.com/proofgate/proofgate/internal/benchutil"
	"github.com/proofgate/proofgate/internal/validate"
)

// BenchmarkPassThrough measures what proofgate adds to requests that are
// not its own: matching the path and calling the next handler. It must not
// allocate.
func BenchmarkPassThrough(b *testing.B) {
	h := &Handler{shortPrefix: "/url/", didcomm: map[string]didcommReceiver{"/didcomm": nil}}
	next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })
	r := httptest.NewRequest(http.MethodGet, "/api/v1/credentials/12345", nil)
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		if err := h.ServeHTTP(w, r, next); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnauthorized is a 401 through the module: route match, the
// gateway's answer, metrics, and the request log line (written as JSON to
// a file, as Caddy's log would; "silenced" is the logger excluded by
// Caddy's log configuration).
func BenchmarkUnauthorized(b *testing.B) {
	for _, mode := range []string{"logged", "silenced"} {
		b.Run(mode, func(b *testing.B) {
			// A digest, as the README advises (a literal key is warned
			// about with a stack trace on every provisioning).
			sum := sha256.Sum256([]byte("bench-key-0123456789abcdef"))
			keys := &apikey.Provider{Keys: []apikey.Key{{Key: "sha256:" + hex.EncodeToString(sum[:]), Orgs: []string{"org"}}}}
			if err := keys.Provision(caddy.Context{}); err != nil {
				b.Fatal(err)
			}
			logger := zap.NewNop()
			if mode == "logged" {
				f, err := os.Create(filepath.Join(b.TempDir(), "requests.log"))
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				logger = zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.Lock(f), zapcore.InfoLevel))
			}
			h := &Handler{
				gw:         &handlers.Gateway{Logger: zap.NewNop(), Auth: auth.Chain{keys}},
				logger:     zap.NewNop(),
				requestLog: logger,
			}
			next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })
			r := httptest.NewRequest(http.MethodPost, "/orgs/0f8fad5b-d9cb-469f-a165-70867728950e/proofs/oob?requestType=indy", nil)
			repl := caddy.NewReplacer()
			r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl))
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				if err := h.ServeHTTP(w, r, next); err != nil || w.Code != http.StatusUnauthorized {
					b.Fatal(err, w.Code)
				}
			}
		})
	}
}

// BenchmarkBadRequest is bench's 400 through the module, as a production
// request takes it: the route, the API key, the body read under a read
// deadline (the writer takes one, as net/http's does), validation, the
// error body, metrics, and the request log sampled as examples/Caddyfile
// samples it (first 10 a second, then 1 in 100) to a file.
func BenchmarkBadRequest(b *testing.B) {
	sum := sha256.Sum256([]byte("bench-key-0123456789abcdef"))
	keys := &apikey.Provider{Keys: []apikey.Key{{Key: "sha256:" + hex.EncodeToString(sum[:]), Orgs: []string{"0f8fad5b-d9cb-469f-a165-70867728950e"}}}}
	if err := keys.Provision(caddy.Context{}); err != nil {
		b.Fatal(err)
	}
	v, err := validate.New(validate.Options{})
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(b.TempDir(), "requests.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.Lock(f), zapcore.InfoLevel)
	core = zapcore.NewSamplerWithOptions(core, time.Second, 10, 100)
	h := &Handler{
		gw: &handlers.Gateway{Logger: zap.NewNop(), Auth: auth.Chain{keys}, AllowedRoles: auth.DefaultAllowedRoles,
			Validator: v, MaxBodySize: DefaultMaxBodySize},
		logger:     zap.NewNop(),
		requestLog: zap.New(core),
	}
	next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })
	const body = `{"isShortenUrl":1,"proofFormats":{"indy":{}}}`
	r := httptest.NewRequest(http.MethodPost, "/orgs/0f8fad5b-d9cb-469f-a165-70867728950e/proofs/oob?requestType=indy", nil)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-API-Key", "bench-key-0123456789abcdef")
	r.ContentLength = int64(len(body))
	r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer()))
	rd := strings.NewReader(body)
	r.Body = io.NopCloser(rd)
	w := &deadlineWriter{header: http.Header{}}
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		rd.Reset(body)
		clear(w.header)
		w.status = 0
		if err := h.ServeHTTP(w, r, next); err != nil || w.status != http.StatusBadRequest {
			b.Fatal(err, w.status)
		}
	}
}

// deadlineWriter is a response writer that takes read deadlines, as
// net/http's does, and drops what is written.
type deadlineWriter struct {
	header http.Header
	status int
}

func (w *deadlineWriter) Header() http.Header             { return w.header }
func (w *deadlineWriter) WriteHeader(status int)          { w.status = status }
func (w *deadlineWriter) Write(b []byte) (int, error)     { return len(b), nil }
func (w *deadlineWriter) SetReadDeadline(time.Time) error { return nil }
