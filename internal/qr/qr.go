// Package qr draws the QR codes of invitation URLs, for the e-mail (PNG)
// and the invitation page (inline SVG), with one choice of error
// correction for both.
package qr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/skip2/go-qrcode"
)

// Encode returns the QR code of text: medium error correction (15%, what
// a phone camera needs for a code on a screen or paper), or low when the
// text does not fit otherwise. It fails only when text does not fit in a
// QR code at all (about 2,900 bytes).
func Encode(text string) (*qrcode.QRCode, error) {
	var q *qrcode.QRCode
	var err error
	for _, level := range []qrcode.RecoveryLevel{qrcode.Medium, qrcode.Low} {
		if q, err = qrcode.New(text, level); err == nil {
			return q, nil
		}
	}
	return nil, err
}

// Modules is how many modules wide q is drawn, its quiet zone included:
// what len(q.Bitmap()) would say, without drawing it. Drawing is most of
// a code's cost (the library lays out the symbol under each of the eight
// masks and scores them, again at every call), so it is done once, by
// whatever renders the code.
func Modules(q *qrcode.QRCode) int {
	n := 17 + 4*q.VersionNumber
	if !q.DisableBorder {
		n += 2 * 4 // the library's quiet zone: 4 modules a side
	}
	return n
}

// SVG draws q as an inline SVG element, the quiet zone included, at the
// most pixels per module up to maxScale (and at least 2) that keep it
// within maxWidth as its intrinsic size: one path of unit squares, black
// on white, crisp at any zoom. It has no script, no style attribute and
// no external reference, so it needs nothing from a page's
// Content-Security-Policy.
func SVG(q *qrcode.QRCode, maxScale, maxWidth int, title string) string {
	bitmap := q.Bitmap() // [y][x], quiet zone included
	n := len(bitmap)
	scale := max(2, min(maxScale, maxWidth/n))
	var d strings.Builder
	for y, row := range bitmap {
		for x := 0; x < n; {
			if !row[x] {
				x++
				continue
			}
			start := x
			for x < n && row[x] {
				x++
			}
			// A horizontal run of dark modules: one rectangle.
			fmt.Fprintf(&d, "M%d %dh%dv1h-%dz", start, y, x-start, x-start)
		}
	}
	size := strconv.Itoa(n * scale)
	dim := strconv.Itoa(n)
	return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="` + escapeAttr(title) +
		`" width="` + size + `" height="` + size + `" viewBox="0 0 ` + dim + ` ` + dim +
		`" shape-rendering="crispEdges"><rect width="` + dim + `" height="` + dim +
		`" fill="#fff"/><path fill="#000" d="` + d.String() + `"/></svg>`
}

func escapeAttr(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&quot;", `'`, "&#39;").Replace(s)
}
