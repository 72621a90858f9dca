package mail

import (
	"bytes"
	"html"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/makiuchi-d/gozxing"
	zxqrcode "github.com/makiuchi-d/gozxing/qrcode"
)

// checkInvitation checks one delivered invitation e-mail: headers, text and
// HTML bodies, and that the inline QR code decodes back to the URL.
func checkInvitation(t *testing.T, data []byte, m Message, cfg Config) {
	t.Helper()
	h, top, parts := parseMail(t, data)
	if got := h.Get("To"); got != "<"+m.To+">" && got != m.To {
		t.Errorf("To = %q", got)
	}
	if got := h.Get("From"); got != `"Proof Gate" <noreply@verifier.example.com>` {
		t.Errorf("From = %q", got)
	}
	if got := h.Get("Subject"); got != cfg.Subject {
		t.Errorf("Subject = %q", got)
	}
	if got, want := h.Get("Message-Id"), "<"+m.ID+"@verifier.example.com>"; got != want {
		t.Errorf("Message-ID = %q, want %q", got, want)
	}
	if h.Get("Auto-Submitted") != "auto-generated" {
		t.Errorf("Auto-Submitted = %q", h.Get("Auto-Submitted"))
	}
	if _, err := h.Date(); err != nil {
		t.Errorf("Date: %v", err)
	}
	if top != "multipart/related" {
		t.Errorf("top-level type %s, want multipart/related", top)
	}

	var text, htmlBody string
	var img *mimePart
	for i, p := range parts {
		switch p.mediaType {
		case "text/plain":
			text = string(p.body)
		case "text/html":
			htmlBody = string(p.body)
		case "image/png":
			img = &parts[i]
		default:
			t.Errorf("unexpected part %s", p.mediaType)
		}
	}
	if !strings.Contains(text, m.InvitationURL) {
		t.Errorf("text has no invitation URL:\n%s", text)
	}
	if !strings.Contains(text, m.Label) {
		t.Errorf("text has no label:\n%s", text)
	}
	escapedURL := html.EscapeString(m.InvitationURL)
	if !strings.Contains(htmlBody, `href="`+escapedURL+`"`) {
		t.Errorf("HTML has no link to the escaped URL %s:\n%s", escapedURL, htmlBody)
	}
	if strings.Contains(htmlBody, m.Label) || !strings.Contains(htmlBody, html.EscapeString(m.Label)) {
		t.Errorf("HTML does not escape the label:\n%s", htmlBody)
	}
	if strings.Contains(htmlBody, "http://") || strings.Count(htmlBody, "https://") != 2 {
		t.Errorf("HTML refers to something other than the invitation URL:\n%s", htmlBody)
	}
	if img == nil {
		t.Fatal("no inline PNG")
	}
	cid := strings.Trim(img.get("Content-Id"), "<>")
	if cid == "" || !strings.Contains(htmlBody, `src="cid:`+cid+`"`) {
		t.Errorf("HTML does not show the inline image %q:\n%s", cid, htmlBody)
	}
	if disp := img.get("Content-Disposition"); !strings.HasPrefix(disp, "inline") {
		t.Errorf("image disposition %q", disp)
	}
	if got := decodeQR(t, img.body); got != m.InvitationURL {
		t.Errorf("QR code decodes to %q", got)
	}
}

func decodeQR(t *testing.T, b []byte) string {
	t.Helper()
	im, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("QR image is not a PNG: %v", err)
	}
	if s := im.Bounds().Size(); s.X < qrMinSize || s.Y != s.X {
		t.Errorf("QR image is %v, want square ≥ %d px", s, qrMinSize)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(im)
	if err != nil {
		t.Fatal(err)
	}
	res, err := zxqrcode.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("QR code does not decode: %v", err)
	}
	return res.GetText()
}

func compose(t testing.TB, m Message) []byte {
	cfg := testConfig("127.0.0.1:25").withDefaults()
	cfg.Subject = "Please share your credentials"
	c, err := newComposer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := c.compose(m, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestComposeInvitation(t *testing.T) {
	m := testMessage("m-1", "alice@example.org")
	checkInvitation(t, compose(t, m), m, testConfig(""))
}

func TestComposeWithoutLabel(t *testing.T) {
	m := testMessage("m-1", "alice@example.org")
	m.Label = ""
	_, _, parts := parseMail(t, compose(t, m))
	if !strings.Contains(string(parts[0].body), "A verifier asks you") {
		t.Errorf("text without label:\n%s", parts[0].body)
	}
}

// A URL too long for any QR code still makes a mail, with the link only.
func TestComposeURLTooLongForQR(t *testing.T) {
	m := testMessage("m-1", "alice@example.org")
	m.InvitationURL = "https://verifier.example.com/?oob=" + strings.Repeat("a", 3000)
	_, top, parts := parseMail(t, compose(t, m))
	if top != "multipart/alternative" || len(parts) != 2 {
		t.Fatalf("got %s with %d parts, want text and HTML only", top, len(parts))
	}
	if strings.Contains(string(parts[1].body), "<img") || strings.Contains(string(parts[0].body), "QR") {
		t.Error("mentions a QR code it does not have")
	}
	if !strings.Contains(string(parts[1].body), m.InvitationURL) {
		t.Error("HTML lost the URL")
	}
}

// A long invitation URL (no short URL) still fits a QR code that decodes.
func TestComposeLongURLQR(t *testing.T) {
	m := testMessage("m-1", "alice@example.org")
	m.InvitationURL = "https://verifier.example.com/?oob=" + strings.Repeat("eyJAdHlwZSI6", 100)
	_, _, parts := parseMail(t, compose(t, m))
	for _, p := range parts {
		if p.mediaType == "image/png" {
			if got := decodeQR(t, p.body); got != m.InvitationURL {
				t.Fatalf("QR code decodes to %q", got)
			}
			return
		}
	}
	t.Fatal("no QR code")
}

func BenchmarkCompose(b *testing.B) {
	m := testMessage("m-1", "alice@example.org")
	cfg := testConfig("127.0.0.1:25").withDefaults()
	c, err := newComposer(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		msg, err := c.compose(m, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		buf.Reset()
		if _, err := msg.WriteTo(&buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes/mail")
}
