package qr

import (
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	zxqrcode "github.com/makiuchi-d/gozxing/qrcode"
)

// The SVG, drawn back into pixels the way a browser fills its path, decodes
// to the text.
func TestSVGDecodes(t *testing.T) {
	for _, text := range []string{
		"https://verifier.example.com/url/JmATy-iojaQo6adP",
		"https://verifier.example.com?oob=" + strings.Repeat("eyJAdHlwZSI6Imh0dHBzOi8vZGlkY29tbS5vcmcvb3V0LW9mLWJhbmQvMS4xL2ludml0YXRpb24i", 12),
	} {
		q, err := Encode(text)
		if err != nil {
			t.Fatal(err)
		}
		if Modules(q) != len(q.Bitmap()) {
			t.Fatalf("Modules %d, the bitmap %d wide", Modules(q), len(q.Bitmap()))
		}
		svg := SVG(q, 4, 1<<20, `QR code of "the" <invitation>`)
		if !strings.HasPrefix(svg, "<svg ") || strings.Contains(svg, "<script") || strings.Contains(svg, "style=") ||
			!strings.Contains(svg, `aria-label="QR code of &quot;the&quot; &lt;invitation&gt;"`) {
			t.Fatalf("svg: %.300s", svg)
		}
		img := rasterize(t, svg, len(q.Bitmap()), 4)
		bmp, err := gozxing.NewBinaryBitmapFromImage(img)
		if err != nil {
			t.Fatal(err)
		}
		res, err := zxqrcode.NewQRCodeReader().Decode(bmp, nil)
		if err != nil {
			t.Fatalf("decoding: %v", err)
		}
		if res.GetText() != text {
			t.Fatalf("decoded %q, want %q", res.GetText(), text)
		}
	}
}

func TestEncodeTooLong(t *testing.T) {
	if _, err := Encode(strings.Repeat("x", 5000)); err == nil {
		t.Fatal("5000 bytes encoded")
	}
}

// rasterize fills the "M x yhWv1h-Wz" runs of the SVG's path.
func rasterize(t *testing.T, svg string, n, scale int) image.Image {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, n*scale, n*scale))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	_, d, _ := strings.Cut(svg, `d="`)
	d, _, _ = strings.Cut(d, `"`)
	for run := range strings.SplitSeq(strings.TrimSuffix(d, "z"), "z") {
		var x, y, w, w2 int
		if _, err := fmt.Sscanf(run, "M%d %dh%dv1h-%d", &x, &y, &w, &w2); err != nil {
			t.Fatalf("path run %q: %v", run, err)
		}
		for py := y * scale; py < (y+1)*scale; py++ {
			for px := x * scale; px < (x+w)*scale; px++ {
				img.SetGray(px, py, color.Gray{})
			}
		}
	}
	return img
}

// TestModulesIsTheBitmapsWidth: Modules says how wide a code is drawn
// without drawing it, for every version a URL reaches.
func TestModulesIsTheBitmapsWidth(t *testing.T) {
	for n := 1; n < 2900; n += 97 {
		q, err := Encode(strings.Repeat("a", n))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := Modules(q), len(q.Bitmap()); got != want {
			t.Errorf("%d bytes, version %d: Modules %d, the bitmap %d wide", n, q.VersionNumber, got, want)
		}
	}
}
