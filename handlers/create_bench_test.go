package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/auth/apikey"
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/benchutil"
	"github.com/proofgate/proofgate/internal/proofs"
	"github.com/proofgate/proofgate/internal/validate"
)

// memStorage keeps documents in memory: the benchmarks below measure the
// create path up to the storage write, not the disk (bench/ measures that,
// against the durable-write ceiling).
type memStorage struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memStorage) Lock(context.Context, string) error   { return nil }
func (s *memStorage) Unlock(context.Context, string) error { return nil }
func (s *memStorage) Store(_ context.Context, key string, v []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[key] = v
	return nil
}
func (s *memStorage) Load(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return v, nil
}
func (s *memStorage) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}
func (s *memStorage) Exists(ctx context.Context, key string) bool {
	_, err := s.Load(ctx, key)
	return err == nil
}
func (s *memStorage) List(context.Context, string, bool) ([]string, error) { return nil, nil }
func (s *memStorage) Stat(ctx context.Context, key string) (certmagic.KeyInfo, error) {
	v, err := s.Load(ctx, key)
	return certmagic.KeyInfo{Key: key, Size: int64(len(v)), IsTerminal: true}, err
}

// localBackend serves creates from the embedded verifier's service, as
// the local module does.
type localBackend struct{ svc *proofs.Service }

func (l localBackend) SendOutOfBandRequest(ctx context.Context, org backend.Org, req backend.OOBRequest) (backend.OOBResult, error) {
	return l.svc.Create(ctx, org, req)
}
func (l localBackend) AcceptPresentation(context.Context, backend.Org, string) (backend.ProofRecord, error) {
	return backend.ProofRecord{}, backend.ErrNotFound
}
func (l localBackend) RecordOrg(ctx context.Context, id string) (string, error) {
	return l.svc.RecordOrg(ctx, id)
}

type oneBackend struct{ b backend.Backend }

func (o oneBackend) Route(orgID string) (backend.Backend, backend.Org, bool) {
	return o.b, backend.Org{ID: orgID}, true
}
func (o oneBackend) All() []backend.Backend { return []backend.Backend{o.b} }
func (o oneBackend) Exclusive(string) bool  { return false }
func (o oneBackend) Orgs() []string         { return nil }

const (
	benchKey = "bench-key-0123456789abcdef"
	benchOrg = "0f8fad5b-d9cb-469f-a165-70867728950e"
	// benchIndy is the body bench/ sends: one attribute with a
	// restriction, one predicate.
	benchIndy = `{"isShortenUrl":false,"proofFormats":{"indy":{"name":"age","version":"1.0","requested_attributes":{"a":{"name":"name","restrictions":[{"cred_def_id":"WgWxqztrNooG92RXvxSTWv:3:CL:20:tag"}]}},"requested_predicates":{"p":{"name":"age","p_type":">=","p_value":18}}}}}`
)

func benchGateway(b *testing.B) *Gateway {
	// A digest, as the README advises (a literal key is warned about with
	// a stack trace on every provisioning).
	sum := sha256.Sum256([]byte(benchKey))
	keys := &apikey.Provider{Keys: []apikey.Key{{Key: "sha256:" + hex.EncodeToString(sum[:]), Orgs: []string{benchOrg}}}}
	if err := keys.Provision(caddy.Context{}); err != nil {
		b.Fatal(err)
	}
	v, err := validate.New(validate.Options{})
	if err != nil {
		b.Fatal(err)
	}
	svc, err := proofs.New(&memStorage{}, proofs.Config{
		PublicURL: "https://verifier.example.com", Endpoint: "https://verifier.example.com/didcomm", Label: "verifier.example.com",
		Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	})
	if err != nil {
		b.Fatal(err)
	}
	return &Gateway{
		Logger: zap.NewNop(), Auth: auth.Chain{keys}, AllowedRoles: auth.DefaultAllowedRoles,
		Validator: v, Backends: oneBackend{localBackend{svc}}, MaxBodySize: 1 << 20,
	}
}

// BenchmarkCreatePath is POST /orgs/{orgId}/proofs/oob on the local
// verifier up to the storage write (which goes to memory here): API key,
// body, validation, the request-presentation and invitation, the record's
// encoding, and the 201. Budget: < 50 µs and ≤ 100 allocations.
func BenchmarkCreatePath(b *testing.B) {
	g := benchGateway(b)
	w := httptest.NewRecorder()
	// The org key is made by the first create.
	g.SendOutOfBandRequest(w, newOOBRequest(benchIndy, true), benchOrg)
	if w.Code != http.StatusCreated {
		b.Fatalf("%d %s", w.Code, w.Body)
	}
	benchmarkOOB(b, g, benchIndy, true, http.StatusCreated)
}

// BenchmarkBadRequest is the 400 path: key checked, body rejected.
func BenchmarkBadRequest(b *testing.B) {
	benchmarkOOB(b, benchGateway(b), `{"isShortenUrl":1,"proofFormats":{"indy":{}}}`, true, http.StatusBadRequest)
}

// BenchmarkUnauthorized is the 401 path.
func BenchmarkUnauthorized(b *testing.B) {
	benchmarkOOB(b, benchGateway(b), benchIndy, false, http.StatusUnauthorized)
}

// benchmarkOOB sends body (with the API key when withKey) to g's
// SendOutOfBandRequest in a loop and expects status. One request serves
// every iteration, its body rewound, and the writer keeps only the status:
// the loop measures the gateway, not httptest parsing a request and
// buffering an answer each time (which cost the create 23 allocations).
func benchmarkOOB(b *testing.B, g *Gateway, body string, withKey bool, status int) {
	r := newOOBRequest(body, withKey)
	rd := strings.NewReader(body)
	r.Body = io.NopCloser(rd)
	w := &discardWriter{header: http.Header{}}
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		rd.Reset(body)
		clear(w.header)
		w.status = 0
		g.SendOutOfBandRequest(w, r, benchOrg)
		if w.status != status {
			b.Fatalf("status %d, want %d", w.status, status)
		}
	}
}

// discardWriter is a response writer that keeps the status and drops the
// body.
type discardWriter struct {
	header http.Header
	status int
}

func (d *discardWriter) Header() http.Header { return d.header }

func (d *discardWriter) WriteHeader(status int) {
	if d.status == 0 {
		d.status = status
	}
}

func (d *discardWriter) Write(p []byte) (int, error) {
	d.WriteHeader(http.StatusOK)
	return len(p), nil
}

// newOOBRequest is a create request for benchOrg with body, carrying the
// API key when withKey.
func newOOBRequest(body string, withKey bool) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/orgs/"+benchOrg+"/proofs/oob?requestType=indy", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if withKey {
		r.Header.Set("X-API-Key", benchKey)
	}
	return r
}
