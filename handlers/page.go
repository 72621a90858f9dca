package handlers

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/proofgate/proofgate/internal/qr"
	"github.com/proofgate/proofgate/internal/ttlcache"
)

// The invitation page: what a person sees when a browser opens an
// invitation link. It works without JavaScript (the QR code is an inline
// SVG); the one script only adds the copy button. Nothing is loaded from
// anywhere: the style and the script are inline, allowed by their hashes
// in the Content-Security-Policy, which allows nothing else.

//go:embed page.html
var pageHTML string

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

var (
	pageTemplate = template.Must(template.New("page").Parse(pageHTML))
	pageCSP      = "default-src 'none'; style-src '" + cspHash(pageCSS) + "'; script-src '" + cspHash(pageJS) +
		"'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// qrScale is the QR code's pixels per module; a code that would be wider
// than qrMaxWidth gets fewer (CSS shrinks it further on small screens).
const (
	qrScale    = 6
	qrMaxWidth = 680 // within main's 46rem less padding and border: whole pixels per module
)

// pageData fills page.html.
type pageData struct {
	CSS   template.CSS // inline, hashed in the CSP
	JS    template.JS
	Title string
	// Problem, when set, replaces the invitation: the link is unknown,
	// expired, answered or damaged.
	Problem string
	Label   string
	Comment string
	QR      template.HTML // inline SVG, built from booleans
	// URL is the invitation URL the QR code holds and the copy button
	// copies; DIDCommURL and LongURL open it in a wallet app (LongURL is
	// the https form, which wallet apps may claim as a link of theirs).
	URL        string
	LongURL    string
	DIDCommURL template.URL
}

// writeInvitationPage answers with the page of an invitation: its label
// and comment, a QR code of url, and links that open it in a wallet.
func writeInvitationPage(w http.ResponseWriter, r *http.Request, url, longURL string, invitation []byte, info invitationInfo) {
	d := pageData{
		Title:      "Proof request",
		Label:      info.Label,
		Comment:    info.Comment,
		URL:        url,
		LongURL:    longURL,
		DIDCommURL: template.URL(didcommURL(invitation)), // base64url only: a safe URL
	}
	if info.Label != "" {
		d.Title = "Proof request from " + info.Label
	}
	d.QR = qrSVG(r.Context(), url)
	writePage(w, r, http.StatusOK, d)
}

// qrSVGs keeps the QR codes of the invitation pages shown lately. Drawing
// the code of a long URL costs some 15 ms of CPU (the library lays the
// symbol out under each of eight masks to pick one), and anyone holding
// an invitation link (a poster, a leaked link) can ask for its page again
// and again: each URL is drawn once in a while, the concurrent askers of
// one wait for the same drawing. Its keys are the URLs of invitations a
// verifier holds (a page is shown for no other), its entries small (a
// version-40 code is some 60 KB of SVG), its size bounded both ways.
var qrSVGs = ttlcache.New[template.HTML](256, 10*time.Minute, 0).
	WithBudget(8<<20, func(h template.HTML) int64 { return int64(len(h)) })

// qrSVG is the QR code of url as inline SVG, "" when url is longer than
// any QR code holds (the page's links still work) or the caller gave up.
func qrSVG(ctx context.Context, url string) template.HTML {
	svg, err := qrSVGs.Get(ctx, url, func(context.Context) (template.HTML, error) {
		return drawQR(url), nil
	})
	if err != nil {
		return ""
	}
	return svg
}

// drawQR draws the QR code of url, "" (remembered too) when it is longer
// than any QR code holds; tests count its calls.
var drawQR = func(url string) template.HTML {
	q, err := qr.Encode(url)
	if err != nil {
		return ""
	}
	return template.HTML(qr.SVG(q, qrScale, qrMaxWidth, "QR code of the invitation link"))
}

// writeProblemPage answers with a page that explains why there is no
// invitation to show.
func writeProblemPage(w http.ResponseWriter, r *http.Request, status int, title, problem string) {
	writePage(w, r, status, pageData{Title: title, Problem: problem})
}

func writePage(w http.ResponseWriter, r *http.Request, status int, d pageData) {
	d.CSS, d.JS = template.CSS(pageCSS), template.JS(pageJS)
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, d); err != nil {
		// The template and its data are ours; this cannot happen.
		http.Error(w, "the page could not be made", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Add("Vary", "Accept")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

// wantsHTML reports whether an Accept header names text/html (browsers
// always do; wallets and API clients do not).
func wantsHTML(accept string) bool {
	return acceptsAny(accept, "text/html", "application/xhtml+xml")
}
