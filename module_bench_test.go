package proofgate

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
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
