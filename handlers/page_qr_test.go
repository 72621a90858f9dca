package handlers

import (
	"html/template"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"go.uber.org/zap"
)

// TestInvitationPageDrawsItsQRCodeOnce: the QR code of a long invitation
// URL costs milliseconds to draw, and anyone holding the link can ask for
// its page again and again: the code is drawn once and kept, the pages
// after it show the same code.
func TestInvitationPageDrawsItsQRCodeOnce(t *testing.T) {
	var draws atomic.Int32
	draw := drawQR
	drawQR = func(url string) template.HTML { draws.Add(1); return draw(url) }
	t.Cleanup(func() { drawQR = draw })

	inv := `{"@type":"https://didcomm.org/out-of-band/1.1/invitation","@id":"qr-once","label":"v","comment":"` + strings.Repeat("c", 900) + `"}`
	states := fakeStates{"qr-once": fakeRecord{"request-sent", inv}}
	var first string
	for i := range 5 {
		r := httptest.NewRequest(http.MethodGet, "https://verifier.example.com/?oob="+oobParam(inv), nil)
		r.Header.Set("Accept", "text/html")
		w := httptest.NewRecorder()
		(&Gateway{Logger: zap.NewNop()}).ServeInvitationLink(w, r, "https://verifier.example.com", states)
		page := w.Body.String()
		if w.Code != http.StatusOK || !strings.Contains(page, "<svg ") {
			t.Fatalf("page %d: %d, no QR code:\n%.400s", i, w.Code, page)
		}
		if i == 0 {
			first = page
		} else if page != first {
			t.Fatalf("page %d differs from the first", i)
		}
	}
	if n := draws.Load(); n != 1 {
		t.Errorf("the QR code was drawn %d times for 5 pages of one invitation, want once", n)
	}
}

// BenchmarkInvitationPageLongURL is the page of an invitation whose long
// URL makes a version-30-odd QR code, asked for again and again (its
// code kept after the first).
func BenchmarkInvitationPageLongURL(b *testing.B) {
	inv := `{"@type":"https://didcomm.org/out-of-band/1.1/invitation","@id":"qr-bench","label":"v","comment":"` + strings.Repeat("c", 900) + `"}`
	states := fakeStates{"qr-bench": fakeRecord{"request-sent", inv}}
	g := &Gateway{Logger: zap.NewNop()}
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodGet, "https://verifier.example.com/?oob="+oobParam(inv), nil)
		r.Header.Set("Accept", "text/html")
		w := httptest.NewRecorder()
		g.ServeInvitationLink(w, r, "https://verifier.example.com", states)
	}
}
