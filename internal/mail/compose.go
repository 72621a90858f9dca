package mail

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	netmail "net/mail"
	"strings"
	texttemplate "text/template"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/proofgate/proofgate/internal/qr"
)

// qrMinSize is the smallest QR image drawn, in pixels: large enough to scan
// from a phone held to a laptop screen or a printout.
const qrMinSize = 256

// composer builds the e-mail of a Message.
type composer struct {
	from    *netmail.Address
	domain  string // of From, for Message-ID and Content-ID
	subject string
}

func newComposer(cfg Config) (*composer, error) {
	from, err := parseFrom(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("email: from: %w", err)
	}
	_, domain, _ := strings.Cut(from.Address, "@")
	return &composer{from: from, domain: domain, subject: cfg.Subject}, nil
}

// bodyData is what the templates show. Every field is escaped by
// html/template; QRSource is the one trusted URL (a cid: we generate).
type bodyData struct {
	Label    string
	URL      string
	QRSource htmltemplate.URL
	QRSize   int
}

var textBody = texttemplate.Must(texttemplate.New("text").Parse(`Hello,

{{.Label}} asks you to share a verifiable credential.

Open this link on the device that holds your digital wallet:

{{.URL}}
{{if .QRSource}}
Or scan the attached QR code with your wallet app.
{{end}}
If you did not expect this request, you can ignore this e-mail.
`))

// htmlBody has no external resources: the QR code is an inline part.
var htmlBody = htmltemplate.Must(htmltemplate.New("html").Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>
<body style="font-family: Arial, Helvetica, sans-serif; color: #222222; line-height: 1.5;">
<p>Hello,</p>
<p><strong>{{.Label}}</strong> asks you to share a verifiable credential.</p>
<p>Open this link on the device that holds your digital wallet:</p>
<p><a href="{{.URL}}" style="display: inline-block; padding: 10px 18px; background: #1a56db; color: #ffffff; text-decoration: none; border-radius: 4px;">Share your credential</a></p>
{{- if .QRSource}}
<p>Or scan this QR code with your wallet app:</p>
<p><img src="{{.QRSource}}" width="{{.QRSize}}" height="{{.QRSize}}" alt="QR code of the invitation link"></p>
{{- end}}
<p style="font-size: small; color: #555555;">If the button does not work, copy this link into your wallet app:<br>{{.URL}}</p>
<p style="font-size: small; color: #555555;">If you did not expect this request, you can ignore this e-mail.</p>
</body>
</html>
`))

// compose builds the e-mail: multipart text and HTML, the QR code of the
// invitation URL as an inline PNG the HTML refers to by Content-ID.
func (c *composer) compose(m Message, date time.Time) (*gomail.Msg, error) {
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	msg.FromMailAddress(c.from)
	if err := msg.To(m.To); err != nil {
		return nil, fmt.Errorf("recipient: %w", err)
	}
	msg.Subject(c.subject)
	msg.SetMessageIDWithValue(m.ID + "@" + c.domain)
	msg.SetDateWithValue(date)
	// RFC 3834: keeps out-of-office responders from answering.
	msg.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated")

	data := bodyData{Label: m.Label, URL: m.InvitationURL}
	if data.Label == "" {
		data.Label = "A verifier"
	}
	png, size := qrPNG(m.InvitationURL)
	cid := "qr-" + m.ID + "@" + c.domain
	if png != nil {
		data.QRSource = htmltemplate.URL("cid:" + cid)
		data.QRSize = size
	}
	var text, html bytes.Buffer
	if err := textBody.Execute(&text, data); err != nil {
		return nil, err
	}
	if err := htmlBody.Execute(&html, data); err != nil {
		return nil, err
	}
	msg.SetBodyString(gomail.TypeTextPlain, text.String())
	msg.AddAlternativeString(gomail.TypeTextHTML, html.String())
	if png != nil {
		if err := msg.EmbedReader("qrcode.png", bytes.NewReader(png),
			gomail.WithFileContentID("<"+cid+">"), // RFC 2392: in angle brackets
			gomail.WithFileContentType(gomail.ContentType("image/png"))); err != nil {
			return nil, err
		}
	}
	return msg, nil
}

// qrPNG draws the QR code of url with whole pixels per module, at least
// qrMinSize wide. It returns nil when the URL does not fit in a QR code
// even at the lowest error correction; the mail then has the link only.
func qrPNG(url string) ([]byte, int) {
	q, err := qr.Encode(url)
	if err != nil {
		return nil, 0
	}
	modules := qr.Modules(q) // with the quiet zone; not drawn twice
	scale := (qrMinSize + modules - 1) / modules
	png, err := q.PNG(-scale)
	if err != nil {
		return nil, 0
	}
	return png, scale * modules
}
