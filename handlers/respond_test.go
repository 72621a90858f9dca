package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/checkslots"
)

func TestWriteBackendError(t *testing.T) {
	for _, tc := range []struct {
		err        error
		status     int
		body       string // substring
		retryAfter string
	}{
		{backend.ErrNotFound, 404, `"message":"proof record r1 not found"`, ""},
		{fmt.Errorf("wrapped: %w", backend.ErrNotFound), 404, `not found`, ""},
		{&backend.ConflictError{State: "done"}, 409, `in state \"done\"`, ""},
		{&backend.ConflictError{State: "done", Unmet: []string{`input descriptor "a": no dateOfBirth`}}, 409,
			`"message":["proof record is in state \"done\"; a presentation can be accepted only in state \"presentation-received\"","its presentation does not answer the proof request","input descriptor \"a\": no dateOfBirth"]`, ""},
		{&backend.UnmetRequestError{Problems: []string{`input descriptor "a": no dateOfBirth`}}, 409,
			`"message":["the presentation does not answer the proof request, so it was not accepted","input descriptor \"a\": no dateOfBirth"]`, ""},
		{&backend.UpstreamError{Status: 500, Message: "the agent failed"}, 502, `"message":"the agent failed"`, ""},
		{backend.ErrTimeout, 504, `"error":"Gateway Timeout"`, ""},
		{context.DeadlineExceeded, 504, `"error":"Gateway Timeout"`, ""},
		{fmt.Errorf("dial: %w", backend.ErrUnavailable), 503, `"error":"Service Unavailable"`, ""},
		// A credo accept that found no checking slot: nothing accepted.
		{fmt.Errorf("%w: %w", backend.ErrUnavailable, checkslots.ErrBusy), 503, `too many presentations are being checked`, "2"},
		{fmt.Errorf("%w: %w", checkslots.ErrBusy, context.DeadlineExceeded), 504, `"error":"Gateway Timeout"`, ""},
		{&backend.UnsupportedError{Field: "protocolVersion", Message: "v1 is not served"}, 400, `["protocolVersion: v1 is not served"]`, ""},
		{errors.New("disk on fire at /var/secret"), 500, `"requestId":"`, ""},
	} {
		t.Run(fmt.Sprintf("%d %v", tc.status, tc.err), func(t *testing.T) {
			w := httptest.NewRecorder()
			writeBackendError(w, nil, zap.NewNop(), "r1", tc.err)
			body := w.Body.String()
			if w.Code != tc.status || !strings.Contains(body, tc.body) {
				t.Fatalf("%d %s; want %d containing %s", w.Code, body, tc.status, tc.body)
			}
			if !strings.Contains(body, fmt.Sprintf(`"statusCode":%d`, tc.status)) {
				t.Fatalf("statusCode differs from the HTTP status: %s", body)
			}
			if strings.Contains(body, "/var/secret") {
				t.Fatalf("internals leaked: %s", body)
			}
			if got := w.Header().Get("Retry-After"); got != tc.retryAfter {
				t.Fatalf("Retry-After %q, want %q", got, tc.retryAfter)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Fatalf("Content-Type %q", ct)
			}
		})
	}
}

func TestExactAuthBodies(t *testing.T) {
	w := httptest.NewRecorder()
	writeUnauthorized(w, `Bearer realm="proofgate"`)
	if w.Code != 401 || w.Body.String() != `{"statusCode":401,"error":"Unauthorized"}` || w.Header().Get("WWW-Authenticate") != `Bearer realm="proofgate"` {
		t.Fatalf("401: %d %s %v", w.Code, w.Body, w.Header())
	}
	w = httptest.NewRecorder()
	writeForbidden(w)
	if w.Code != 403 || w.Body.String() != `{"statusCode":403,"error":"Forbidden"}` {
		t.Fatalf("403: %d %s", w.Code, w.Body)
	}
}

func TestIsJSON(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json":                  true,
		"application/json; charset=utf-8":   true,
		"Application/JSON":                  true,
		"application/problem+json":          true,
		"application/vnd.api+json; q=1":     true,
		"application/+json":                 false,
		"text/json":                         false,
		"text/plain":                        false,
		"application/jsonx":                 false,
		"":                                  false,
		"application/json; charset=\"utf-8": false,
	} {
		if got := isJSON(ct); got != want {
			t.Errorf("isJSON(%q) = %v, want %v", ct, got, want)
		}
	}
}

func TestWantsJSON(t *testing.T) {
	for accept, want := range map[string]bool{
		"application/json":                          true,
		"text/html, application/json;q=0.9":         true,
		"APPLICATION/JSON":                          true,
		"text/html,application/xhtml+xml,*/*;q=0.8": false,
		"": false,
		// q=0: not acceptable (RFC 9110, 12.5.1).
		"application/json;q=0":                 false,
		"application/json; q=0, text/html":     false,
		"Application/JSON;charset=utf-8;q=0.1": true,
	} {
		if got := wantsJSON(accept); got != want {
			t.Errorf("wantsJSON(%q) = %v, want %v", accept, got, want)
		}
	}
}

// JSON answers keep what the caller wrote: ">=" stays ">=", not "\u003e=",
// also inside raw JSON passed through (invitations, records).
func TestWriteJSONNoHTMLEscaping(t *testing.T) {
	w := httptest.NewRecorder()
	writeJSON(w, 400, map[string]any{
		"message": []string{`p_type: must be one of >= > <= < & "quoted"`},
		"raw":     json.RawMessage(`{"p_type":">="}`),
	})
	got := w.Body.String()
	want := `{"message":["p_type: must be one of >= > <= < & \"quoted\""],"raw":{"p_type":">="}}`
	if got != want {
		t.Fatalf("body\n%s\nwant\n%s", got, want)
	}
}
