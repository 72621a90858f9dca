package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	_ "image/png"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/makiuchi-d/gozxing"
	zxmulti "github.com/makiuchi-d/gozxing/multi/qrcode"
)

// The invitation page in a real browser: headless Chromium (Debian's
// chromium package; scripts/test.sh installs it where it can) loads it,
// takes a screenshot, and the QR code read back from the pixels must be the
// invitation URL. Every request the browser makes goes through a proxy of
// the test's that records it and refuses anything but loopback.

// chromium returns the browser's executable, or skips the test with one
// line saying what to install.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PROOFGATE_CHROMIUM"); p != "" {
		return p
	}
	if reason := os.Getenv("PROOFGATE_CHROMIUM_SKIP"); reason != "" {
		t.Skip(reason)
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("browser test skipped: no chromium; install it (as root: apt-get install chromium), set PROOFGATE_CHROMIUM, or run scripts/test.sh")
	return ""
}

// recordingProxy is an HTTP proxy that records every host the browser
// asks for and forwards only requests to loopback.
type recordingProxy struct {
	srv   *http.Server
	addr  string
	mu    sync.Mutex
	hosts []string
}

func startRecordingProxy(t *testing.T) *recordingProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &recordingProxy{addr: l.Addr().String()}
	forward := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if r.Method != http.MethodConnect && r.URL.Host != "" {
			host = r.URL.Host
		}
		p.mu.Lock()
		p.hosts = append(p.hosts, r.Method+" "+host)
		p.mu.Unlock()
		if r.Method == http.MethodConnect || !isLoopbackHost(host) || r.URL.Scheme != "http" {
			http.Error(w, "the test proxy forwards only plain HTTP to loopback", http.StatusForbidden)
			return
		}
		out := r.Clone(r.Context())
		out.RequestURI = ""
		resp, err := forward.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	})}
	go func() { _ = p.srv.Serve(l) }()
	t.Cleanup(func() { _ = p.srv.Close() })
	return p
}

func (p *recordingProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.hosts...)
}

func isLoopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// pageRequest is one request the browser made for a page: its URL and the
// page's site (the top frame's, from the request's network isolation key).
type pageRequest struct{ url, site string }

// runChromium runs headless Chromium on url through the proxy with extra
// flags; it returns the browser's stdout and the requests made on behalf of
// pages, read from Chromium's net log. The browser's own requests (updates,
// sign-in), which the proxy refuses, carry no page's site and are left out.
func runChromium(t *testing.T, exe string, proxy *recordingProxy, url string, extra ...string) ([]byte, []pageRequest) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	netLog := filepath.Join(t.TempDir(), "netlog.json")
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-default-apps", "--disable-extensions", "--no-default-browser-check",
		"--user-data-dir=" + t.TempDir(),
		// Every request, loopback included, goes through the proxy, which
		// lets only loopback through: nothing reaches the internet.
		"--proxy-server=http://" + proxy.addr, "--proxy-bypass-list=<-loopback>",
		"--log-net-log=" + netLog,
		// Autofill asks Google about pages with form fields; it is the
		// browser's request, not the page's.
		"--disable-features=AutofillServerCommunication",
		"--hide-scrollbars",
	}
	args = append(append(args, extra...), url)
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir = t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, lastLines(stderr.String(), 20))
	}
	return stdout.Bytes(), readNetLog(t, netLog)
}

// readNetLog returns the URL requests of a Chromium net log that were made
// for a page (their network isolation key names a top-frame site).
func readNetLog(t *testing.T, path string) []pageRequest {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("chromium wrote no net log: %v", err)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL string `json:"url"`
				NIK string `json:"network_isolation_key"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(raw, &log); err != nil {
		// A log cut short at exit lacks its closing brackets.
		if err2 := json.Unmarshal(append(bytes.TrimRight(bytes.TrimSpace(raw), ","), "]}"...), &log); err2 != nil {
			t.Fatalf("net log: %v", err)
		}
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatal("net log: no URL_REQUEST_START_JOB event type")
	}
	var reqs []pageRequest
	for _, e := range log.Events {
		if e.Type != start || e.Params.URL == "" {
			continue
		}
		site, _, _ := strings.Cut(e.Params.NIK, " ")
		if strings.Contains(site, "://") {
			reqs = append(reqs, pageRequest{url: e.Params.URL, site: site})
		}
	}
	return reqs
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// screenshotQR loads url in Chromium (a tall window: the long URL's QR
// code is dense) and decodes the QR code in the
// screenshot. (The QR code needs no JavaScript: it is an SVG in the HTML
// the server sends, as TestInvitationPage checks. Headless Chromium takes
// no screenshot with scripts disabled.)
func screenshotQR(t *testing.T, exe string, proxy *recordingProxy, url string) string {
	return screenshotQRSize(t, exe, proxy, url, "1000,1600")
}

// screenshotQRSize is screenshotQR in a window of size ("W,H"; "" for
// Chromium's default, 780x437 in headless mode here).
func screenshotQRSize(t *testing.T, exe string, proxy *recordingProxy, url, size string) string {
	t.Helper()
	shot := filepath.Join(t.TempDir(), "page.png")
	extra := []string{"--screenshot=" + shot}
	if size != "" {
		extra = append(extra, "--window-size="+size)
	}
	_, reqs := runChromium(t, exe, proxy, url, extra...)
	checkPageRequests(t, url, reqs)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	// ZXing's multi-code reader, not its single-code one: the single-code
	// detector stops scanning at the first three finder-like patterns it
	// confirms, and the data of a dense code (the long URL's is version
	// 35) sometimes holds one, so about one long-URL screenshot in four
	// went unread. The multi-code reader collects every candidate and
	// tries each plausible triple; the text it reads is still the code's.
	hints := map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_TRY_HARDER: true}
	res, err := zxmulti.NewQRCodeMultiReader().DecodeMultiple(bmp, hints)
	if err == nil && len(res) == 0 {
		err = errors.New("no code found")
	}
	if err != nil {
		keep := filepath.Join(os.TempDir(), "proofgate-invitation-page.png")
		if b, rerr := os.ReadFile(shot); rerr == nil {
			_ = os.WriteFile(keep, b, 0o644)
		}
		t.Fatalf("no QR code read from the screenshot (kept at %s): %v", keep, err)
	}
	for _, r := range res[1:] {
		if r.GetText() != res[0].GetText() {
			t.Fatalf("the screenshot holds %d QR codes that differ: %q and %q", len(res), res[0].GetText(), r.GetText())
		}
	}
	return res[0].GetText()
}

func TestInvitationPageInChromium(t *testing.T) {
	exe := chromium(t)
	startCaddy(t, "")
	short, long := createShortened(t, pageBody)
	proxy := startRecordingProxy(t)

	// The short URL's page in Chromium's default window, as a person
	// opening the link sees it first.
	if got := screenshotQRSize(t, exe, proxy, short, ""); got != short {
		t.Errorf("QR code of the short URL's page reads %q, want %q", got, short)
	}
	if got := screenshotQR(t, exe, proxy, long); got != long {
		t.Errorf("QR code of the long URL's page reads %q, want %q", got, long)
	}

	// With JavaScript on, the page's one (hashed) script runs under its
	// CSP: it shows the copy button.
	out, reqs := runChromium(t, exe, proxy, short, "--dump-dom")
	checkPageRequests(t, short, reqs)
	dom := string(out)
	if !strings.Contains(dom, `<button id="copy" type="button">Copy link</button>`) {
		t.Errorf("the copy button is still hidden: the page's script did not run\n%s", lastLines(dom, 15))
	}

	if len(proxy.requests()) == 0 {
		t.Fatal("the proxy saw no request: the browser bypassed it")
	}
}

// checkPageRequests wants the page at url loaded, and every request made
// for it (those keyed to its site) to go to loopback: no CDN, font,
// analytics or other third party.
func checkPageRequests(t *testing.T, url string, reqs []pageRequest) {
	t.Helper()
	page, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	site := page.Scheme + "://" + page.Hostname()
	loaded := false
	var beyond []string
	for _, r := range reqs {
		if r.site != site {
			continue // the browser's own (sign-in, updates): refused by the proxy
		}
		u, err := neturl.Parse(r.url)
		if err != nil || !isLoopbackHost(u.Host) {
			beyond = append(beyond, r.url)
			continue
		}
		loaded = loaded || u.Host == page.Host && u.RequestURI() == page.RequestURI()
	}
	if !loaded {
		t.Errorf("the net log shows no request for %s: %v", url, reqs)
	}
	if len(beyond) > 0 {
		t.Errorf("the page made requests beyond loopback: %v", beyond)
	}
}
