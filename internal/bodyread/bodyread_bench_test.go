package bodyread

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// benchBody is a body that, as net/http's of known length, reports its
// end with its last bytes.
type benchBody struct {
	data string
	off  int
}

func (b *benchBody) Read(p []byte) (int, error) {
	n := copy(p, b.data[b.off:])
	b.off += n
	if b.off == len(b.data) {
		return n, io.EOF
	}
	return n, nil
}

func (b *benchBody) Close() error { return nil }

// deadlineRecorder takes read deadlines, as a connection does.
type deadlineRecorder struct{ *httptest.ResponseRecorder }

func (deadlineRecorder) SetReadDeadline(time.Time) error { return nil }

// BenchmarkRead reads a body as the routes do behind Caddy on HTTP/1
// (through its idle reader): a small body without a budget is the 400
// path's; the budget is the DIDComm endpoint's.
func BenchmarkRead(b *testing.B) {
	for _, bc := range []struct {
		name   string
		size   int
		budget bool
	}{
		{"2B", 2, false},
		{"2B budget", 2, true},
		{"4KiB budget", 4 << 10, true},
		{"64KiB", 64 << 10, false},
		{"64KiB budget", 64 << 10, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := Limits{Max: 1 << 20}
			if bc.budget {
				l.Budget = NewBudget(16 << 20)
			}
			w := deadlineRecorder{httptest.NewRecorder()}
			ctrl := http.NewResponseController(w)
			logger := zap.NewNop()
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			r.ContentLength = int64(bc.size)
			body := &benchBody{data: strings.Repeat("x", bc.size)}
			idle := &caddyhttp.IdleTimeoutReader{}
			r.Body = idle
			b.ReportAllocs()
			for b.Loop() {
				body.off = 0
				*idle = caddyhttp.IdleTimeoutReader{
					ReadCloser: body,
					Ctrl:       ctrl,
					Deadline:   caddyhttp.IdleDeadline{Start: time.Now(), Timeout: time.Minute},
					Logger:     logger,
				}
				if got, err := Read(w, r, l); err != nil || len(got) != bc.size {
					b.Fatalf("%d bytes, %v", len(got), err)
				}
			}
		})
	}
}
