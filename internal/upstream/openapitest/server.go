// Package openapitest runs fake upstream agents for tests: real HTTP servers
// on loopback that check every request they receive against the agent's
// real OpenAPI document (docs/, copied from the agents' published
// documents) and fail the test on any violation, then answer the way the
// agent does, with responses that are checked against the same document.
package openapitest

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

//go:embed docs/*.json
var docs embed.FS

// Document names.
const (
	CredoDoc = "credo-controller.openapi.json" // credo-controller 2.0.0 (didcomm layout)
	ACAPyDoc = "acapy.openapi.json"            // ACA-Py 1.6.1rc0 admin API
)

type loaded struct {
	doc    *openapi3.T
	router routers.Router
	err    error
}

var (
	loadMu sync.Mutex
	cache  = map[string]*loaded{}
)

// Load parses an embedded document once per test binary.
func Load(name string) (*openapi3.T, routers.Router, error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	if l, ok := cache[name]; ok {
		return l.doc, l.router, l.err
	}
	l := new(loaded)
	cache[name] = l
	b, err := docs.ReadFile("docs/" + name)
	if err != nil {
		l.err = err
		return nil, nil, err
	}
	l.doc, l.err = openapi3.NewLoader().LoadFromData(b)
	if l.err != nil {
		return nil, nil, l.err
	}
	repair(l.doc)
	// The ACA-Py document's own examples break its schemas (e.g. an
	// example "world" for an object); the schemas themselves are sound.
	l.router, l.err = legacy.NewRouter(l.doc, openapi3.DisableExamplesValidation())
	return l.doc, l.router, l.err
}

// Options configure a Server.
type Options struct {
	// Doc is the document name (CredoDoc or ACAPyDoc).
	Doc string
	// Rewrite maps a request path that the document does not describe to
	// the documented operation it stands for (credo-controller's legacy
	// layout, which has no published document of its own). Nil: none.
	Rewrite func(method, path string) string
	// Authenticate checks a request against one security scheme of the
	// document; nil accepts any. Only the form of the credential is a
	// conformance matter: whether the token is valid is the agent's
	// business (a 401 from Handler).
	Authenticate func(r *http.Request, scheme *openapi3.SecurityScheme, name string) error
	// Handler is the fake agent, called once the request passed validation.
	Handler http.Handler
}

// Server is a conformance-checking fake agent.
type Server struct {
	*httptest.Server
	t    testing.TB
	opts Options

	mu     sync.Mutex
	calls  []Call
	faults map[string][]Fault
}

// Fault is a misbehaviour injected into the next call of one operation.
type Fault struct {
	// Delay holds the answer back (to provoke timeouts).
	Delay time.Duration
	// Status, when set, is answered instead of the agent acting, with Body
	// (Content-Type ContentType, default application/json).
	Status      int
	Body        string
	ContentType string
	// Hangup lets the agent act, then closes the connection unanswered.
	Hangup bool
}

// Inject queues f for the next call of operation op.
func (s *Server) Inject(op string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults == nil {
		s.faults = map[string][]Fault{}
	}
	s.faults[op] = append(s.faults[op], f)
}

func (s *Server) takeFault(op string) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.faults[op]
	if len(q) == 0 {
		return Fault{}, false
	}
	s.faults[op] = q[1:]
	return q[0], true
}

// Call is one request the server accepted.
type Call struct {
	Operation string // operationId, or "METHOD /documented/path" when it has none
	Method    string
	Path      string // as received
	Header    http.Header
	Body      []byte
}

// maxRequest caps what the fake agent reads of one request.
const maxRequest = 1 << 20

// NewServer starts a Server on loopback; it stops with the test.
func NewServer(t testing.TB, opts Options) *Server {
	t.Helper()
	if _, _, err := Load(opts.Doc); err != nil {
		t.Fatalf("loading %s: %v", opts.Doc, err)
	}
	s := &Server{t: t, opts: opts}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Calls returns the requests served so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Operations returns the operation of every call so far, in order.
func (s *Server) Operations() []string {
	var ops []string
	for _, c := range s.Calls() {
		ops = append(ops, c.Operation)
	}
	return ops
}

func (s *Server) violation(w http.ResponseWriter, r *http.Request, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.t.Errorf("%s: request %s %s violates the document: %s", s.opts.Doc, r.Method, r.URL.Path, msg)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnprocessableEntity)
	fmt.Fprintf(w, `{"message":"Validation Failed","details":%q}`, msg)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	_, router, _ := Load(s.opts.Doc)
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequest+1))
	if err != nil || len(body) > maxRequest {
		s.violation(w, r, "unreadable or oversized body")
		return
	}

	// Validate a copy whose path is the documented one.
	vr := r.Clone(r.Context())
	vr.Body = io.NopCloser(bytes.NewReader(body))
	if s.opts.Rewrite != nil {
		vr.URL.Path = s.opts.Rewrite(r.Method, r.URL.Path)
		vr.URL.RawPath = ""
	}
	route, params, err := router.FindRoute(vr)
	if err != nil {
		s.violation(w, r, "no such operation (%v)", err)
		return
	}
	in := &openapi3filter.RequestValidationInput{
		Request: vr, PathParams: params, Route: route,
		Options: &openapi3filter.Options{
			MultiError: true,
			AuthenticationFunc: func(_ context.Context, ai *openapi3filter.AuthenticationInput) error {
				if s.opts.Authenticate == nil {
					return nil
				}
				return s.opts.Authenticate(r, ai.SecurityScheme, ai.SecuritySchemeName)
			},
		},
	}
	if err := openapi3filter.ValidateRequest(r.Context(), in); err != nil {
		s.violation(w, r, "%v", err)
		return
	}
	op := route.Operation.OperationID
	if op == "" {
		op = r.Method + " " + route.Path
	}
	s.mu.Lock()
	s.calls = append(s.calls, Call{Operation: op, Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	s.mu.Unlock()

	fault, faulty := s.takeFault(op)
	if faulty && fault.Delay > 0 {
		select {
		case <-time.After(fault.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if faulty && fault.Status != 0 {
		if fault.ContentType == "" {
			fault.ContentType = "application/json"
		}
		w.Header().Set("Content-Type", fault.ContentType)
		w.WriteHeader(fault.Status)
		_, _ = io.WriteString(w, fault.Body)
		return
	}

	// Let the fake agent answer, then check the answer too.
	r.Body = io.NopCloser(bytes.NewReader(body))
	r = r.WithContext(context.WithValue(r.Context(), routeKey{}, routeInfo{op: op, params: params}))
	rec := httptest.NewRecorder()
	s.opts.Handler.ServeHTTP(rec, r)
	if faulty && fault.Hangup {
		// The agent acted, but the caller never learns it.
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
		}
		return
	}
	res := rec.Result()
	if res.StatusCode < 300 {
		rin := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in,
			Status:                 res.StatusCode,
			Header:                 res.Header,
			Options:                &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true},
		}
		rin.SetBodyBytes(rec.Body.Bytes())
		if err := openapi3filter.ValidateResponse(r.Context(), rin); err != nil {
			s.t.Errorf("%s: the fake agent's answer to %s %s violates the document: %v", s.opts.Doc, r.Method, r.URL.Path, err)
		}
	}
	for k, v := range res.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(res.StatusCode)
	_, _ = w.Write(rec.Body.Bytes())
}

// BearerOrRaw reports the credential in an Authorization header value:
// the token, and whether it came with the "Bearer " scheme.
func BearerOrRaw(h string) (token string, bearer bool) {
	if t, ok := strings.CutPrefix(h, "Bearer "); ok {
		return t, true
	}
	return h, false
}

type routeKey struct{}

type routeInfo struct {
	op     string
	params map[string]string
}

// Operation returns the documented operation a request to a fake agent's
// Handler was matched to, and its path parameters.
func Operation(r *http.Request) (op string, params map[string]string) {
	ri, _ := r.Context().Value(routeKey{}).(routeInfo)
	return ri.op, ri.params
}

// repair fixes defects of the generated documents that make kin-openapi
// refuse them whole: path parameters used but not declared
// (credo-controller's accept-proposal), declared here as plain strings;
// operation ids used twice (credo-controller's AcceptRequest,
// CreateSchema...), where every use but the first is renamed "METHOD path";
// and tags listed twice (ACA-Py's "AnonCreds - Revocation"). None of the
// operations proofgate calls needs a repair; they stay as published.
func repair(doc *openapi3.T) {
	var tags openapi3.Tags
	seenTag := map[string]bool{}
	for _, tg := range doc.Tags {
		if !seenTag[tg.Name] {
			seenTag[tg.Name] = true
			tags = append(tags, tg)
		}
	}
	doc.Tags = tags
	seen := map[string]bool{}
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, path := range paths {
		item := doc.Paths.Value(path)
		var names []string
		for _, part := range strings.Split(path, "/") {
			if strings.HasPrefix(part, "{") && strings.HasSuffix(part, "}") {
				names = append(names, part[1:len(part)-1])
			}
		}
		methods := make([]string, 0, 4)
		for m := range item.Operations() {
			methods = append(methods, m)
		}
		sort.Strings(methods)
		for _, m := range methods {
			op := item.GetOperation(m)
			for _, name := range names {
				if op.Parameters.GetByInAndName("path", name) != nil || item.Parameters.GetByInAndName("path", name) != nil {
					continue
				}
				op.Parameters = append(op.Parameters, &openapi3.ParameterRef{Value: openapi3.NewPathParameter(name).
					WithSchema(openapi3.NewStringSchema())})
			}
			if op.OperationID != "" && seen[op.OperationID] {
				op.OperationID = m + " " + path
			}
			seen[op.OperationID] = true
		}
	}
}
