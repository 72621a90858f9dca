package proofgate

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func TestRequestStart(t *testing.T) {
	caddyStart := time.Now().Add(-time.Second)
	for _, tc := range []struct {
		name      string
		idle      *caddyhttp.IdleTimeoutReader // nil: the body is not wrapped
		wantCaddy bool                         // Caddy's start, else about now
	}{
		{"Caddy's idle reader keeps the start", &caddyhttp.IdleTimeoutReader{Deadline: caddyhttp.IdleDeadline{Start: caddyStart}}, true},
		{"an idle reader without a start", &caddyhttp.IdleTimeoutReader{}, false},
		{"any other body", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", strings.NewReader("{}"))
			if tc.idle != nil {
				tc.idle.ReadCloser = r.Body
				r.Body = tc.idle
			}
			got := requestStart(r)
			if tc.wantCaddy != got.Equal(caddyStart) || (!tc.wantCaddy && time.Since(got) > time.Second/2) {
				t.Fatalf("start %v (Caddy's %v)", got, caddyStart)
			}
		})
	}
}
