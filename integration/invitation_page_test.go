package integration

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

const pageBody = `{"isShortenUrl":true,"label":"Bank & <Co>","comment":"Over 18? Age >= 18 <script>alert(1)</script>",
	"proofFormats":{"indy":{"name":"age check","version":"1.0","requested_predicates":{"adult":{"name":"age","p_type":">=","p_value":18}}}}}`

// createShortened makes a shortened indy request and returns its short and
// long invitation URLs.
func createShortened(t *testing.T, body string) (short, long string) {
	t.Helper()
	r := postJSON(t, oobPath(orgA, "indy"), keyA, body)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	data := r.json(t)["data"].(map[string]any)
	return data["invitationUrl"].(string), data["longInvitationUrl"].(string)
}

// pathOf is the path and query of an absolute URL on the test server.
func pathOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.RequestURI()
}

const browserAccept = "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

func TestInvitationPage(t *testing.T) {
	startCaddy(t, "")
	short, long := createShortened(t, pageBody)
	if !strings.HasPrefix(long, base+"/?oob=") && !strings.HasPrefix(long, base+"?oob=") {
		t.Fatalf("long URL %s", long)
	}

	for name, link := range map[string]string{"short": short, "long": long} {
		t.Run(name, func(t *testing.T) {
			r := do(t, http.MethodGet, pathOf(t, link), "", browserAccept)
			if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
				t.Fatalf("%d %s\n%s", r.status, r.header.Get("Content-Type"), r.body)
			}
			page := string(r.body)
			checkPageCSP(t, r.header.Get("Content-Security-Policy"), page)
			for _, want := range []string{
				`<span class="label">Bank &amp; &lt;Co&gt;</span>`,
				`Over 18? Age &gt;= 18 &lt;script&gt;alert(1)&lt;/script&gt;`,
				`<svg `, `href="didcomm://invite?oob=`,
				`value="` + strings.ReplaceAll(link, "&", "&amp;") + `"`,
			} {
				if !strings.Contains(page, want) {
					t.Errorf("page lacks %s", want)
				}
			}
			if strings.Contains(page, "<script>alert") || strings.Contains(page, "http://") && strings.Contains(page, "src=\"http") {
				t.Errorf("page carries the caller's markup or an external resource:\n%s", page)
			}
			// Wallets still get JSON by content negotiation.
			j := do(t, http.MethodGet, pathOf(t, link), "", "Accept: application/json")
			if j.status != http.StatusOK || j.json(t)["@type"] != "https://didcomm.org/out-of-band/1.1/invitation" {
				t.Fatalf("JSON: %d %s", j.status, j.body)
			}
		})
	}

	// A client that asks for neither is redirected to the long URL (RFC 0434).
	r := do(t, http.MethodGet, pathOf(t, short), "")
	if r.status != http.StatusFound || r.header.Get("Location") != long {
		t.Fatalf("short URL without Accept: %d Location %q", r.status, r.header.Get("Location"))
	}
	// The site's other requests at the public URL's path pass through.
	wantBody(t, do(t, http.MethodGet, "/", "", browserAccept), http.StatusOK, "passed through")
	wantBody(t, do(t, http.MethodGet, "/?page=2", "", browserAccept), http.StatusOK, "passed through")
	wantBody(t, do(t, http.MethodPost, pathOf(t, long), "x", "Content-Type: text/plain"), http.StatusOK, "passed through")
}

func TestInvitationPageProblems(t *testing.T) {
	startCaddy(t, "")
	for _, tc := range []struct {
		name, path string
		status     int
		says       string
	}{
		{"unknown short URL", "/url/AAAAAAAAAAAAAAAA", http.StatusNotFound, "unknown or has expired"},
		{"unknown local short URL", "/url/hevnfwccQeqdhjv3A9PADA", http.StatusNotFound, "unknown or has expired"},
		{"damaged long URL", "/?oob=eyJAdHlwZSI6", http.StatusBadRequest, "incomplete or damaged"},
		{"not an invitation", "/?oob=" + base64.RawURLEncoding.EncodeToString([]byte(`{"@type":"https://didcomm.org/present-proof/2.0/request-presentation"}`)), http.StatusBadRequest, "incomplete or damaged"},
		{"unknown invitation", "/?oob=" + base64.RawURLEncoding.EncodeToString([]byte(`{"@type":"https://didcomm.org/out-of-band/1.1/invitation","@id":"6e2e0b8c-5d1f-4d2a-9f3e-1c2b3a4d5e6f","label":"x"}`)), http.StatusNotFound, "unknown or has expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, http.MethodGet, tc.path, "", browserAccept)
			if r.status != tc.status || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") || !strings.Contains(string(r.body), tc.says) {
				t.Fatalf("%d %s\n%s", r.status, r.header.Get("Content-Type"), r.body)
			}
			checkPageCSP(t, r.header.Get("Content-Security-Policy"), string(r.body))
		})
	}
	// JSON clients get JSON errors.
	r := do(t, http.MethodGet, "/url/AAAAAAAAAAAAAAAA", "", "Accept: application/json")
	wantBody(t, r, http.StatusNotFound, `{"statusCode":404,"error":"Not Found","message":"this invitation link is unknown or has expired"}`)
}

// checkPageCSP wants a policy that allows nothing but the page's own inline
// style and script, by their hashes.
func checkPageCSP(t *testing.T, csp, page string) {
	t.Helper()
	if !strings.HasPrefix(csp, "default-src 'none';") || strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") {
		t.Errorf("CSP %q", csp)
	}
	for _, tag := range []string{"style", "script"} {
		_, rest, ok := strings.Cut(page, "<"+tag+">")
		if !ok {
			if tag == "script" {
				continue // problem pages have none
			}
			t.Errorf("no <%s>", tag)
			continue
		}
		inline, _, _ := strings.Cut(rest, "</"+tag+">")
		sum := sha256.Sum256([]byte(inline))
		if want := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, tag+"-src "+want) {
			t.Errorf("CSP %q does not allow the page's <%s> (%s)", csp, tag, want)
		}
	}
}

// TestInvitationPageOnceAnswered: once a wallet has answered, the short
// URL's page says so, as the long URL's does (410); wallets asking for
// JSON still get the invitation.
func TestInvitationPageOnceAnswered(t *testing.T) {
	startCaddy(t, "")
	r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, peBody)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	data := r.json(t)["data"].(map[string]any)
	short, long := data["invitationUrl"].(string), data["longInvitationUrl"].(string)
	if short == long {
		t.Fatal("no short URL")
	}
	present(t, wallet.NewT(t, wallet.Options{}), long)
	for name, link := range map[string]string{"short": short, "long": long} {
		t.Run(name, func(t *testing.T) {
			p := do(t, http.MethodGet, pathOf(t, link), "", browserAccept)
			if p.status != http.StatusGone || !strings.Contains(string(p.body), "already been answered") {
				t.Fatalf("page: %d %s", p.status, p.body)
			}
			if j := do(t, http.MethodGet, pathOf(t, link), "", "Accept: application/json"); j.status != http.StatusOK {
				t.Fatalf("JSON: %d %s", j.status, j.body)
			}
		})
	}
}
