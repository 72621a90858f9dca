package handlers

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
)

// fakeRecord is what fakeStates holds of a record: its state and its
// invitation.
type fakeRecord struct{ state, invitation string }

type fakeStates map[string]fakeRecord

func (f fakeStates) InvitationState(_ context.Context, id string) (string, json.RawMessage, error) {
	if rec, ok := f[id]; ok {
		return rec.state, json.RawMessage(rec.invitation), nil
	}
	return "", nil, backend.ErrNotFound
}

func oobParam(inv string) string { return base64.RawURLEncoding.EncodeToString([]byte(inv)) }

func TestServeInvitationLink(t *testing.T) {
	const inv = `{"@type":"https://didcomm.org/out-of-band/1.1/invitation","@id":"%s","label":"Verifier <One>",
		"requests~attach":[{"data":{"base64":"` + `eyJjb21tZW50IjoiQWdlID49IDE4In0=` + `"}}]}`
	states := fakeStates{}
	for id, state := range map[string]string{"waiting": backend.StateRequestSent, "answered": backend.StatePresentationReceived,
		"done": backend.StateDone, "closed": backend.StateAbandoned} {
		states[id] = fakeRecord{state, strings.Replace(inv, "%s", id, 1)}
	}
	// The record's storage escapes what the long URL does not ("<").
	var escaped bytes.Buffer
	json.HTMLEscape(&escaped, []byte(strings.Replace(inv, "%s", "stored escaped", 1)))
	states["stored escaped"] = fakeRecord{backend.StateRequestSent, escaped.String()}
	// forged is the @id of a waiting record in an invitation of another's.
	forged := strings.Replace(strings.Replace(inv, "%s", "waiting", 1), "Verifier <One>", "Your Bank", 1)
	g := &Gateway{Logger: zap.NewNop()}
	for _, tc := range []struct {
		name, oob, accept string
		status            int
		says              string
	}{
		{"waiting", oobParam(strings.Replace(inv, "%s", "waiting", 1)), "text/html", 200, "Age &gt;= 18"},
		{"label escaped", oobParam(strings.Replace(inv, "%s", "waiting", 1)), "text/html", 200, "Verifier &lt;One&gt;"},
		{"stored with JSON's HTML escapes", oobParam(strings.Replace(inv, "%s", "stored escaped", 1)), "text/html", 200, "Verifier &lt;One&gt;"},
		{"json", oobParam(strings.Replace(inv, "%s", "waiting", 1)), "application/json", 200, `"label":"Verifier <One>"`},
		{"padded std base64", base64.StdEncoding.EncodeToString([]byte(strings.Replace(inv, "%s", "waiting", 1))), "text/html", 200, "Age &gt;= 18"},
		{"answered", oobParam(strings.Replace(inv, "%s", "answered", 1)), "text/html", 410, "already been answered"},
		{"done", oobParam(strings.Replace(inv, "%s", "done", 1)), "text/html", 410, "already been answered"},
		{"closed", oobParam(strings.Replace(inv, "%s", "closed", 1)), "text/html", 410, "closed"},
		{"unknown", oobParam(strings.Replace(inv, "%s", "other", 1)), "text/html", 404, "unknown or has expired"},
		{"not the record's invitation", oobParam(forged), "text/html", 404, "unknown or has expired"},
		{"not the record's invitation json", oobParam(forged), "application/json", 404, `"statusCode":404`},
		{"unknown json", oobParam(strings.Replace(inv, "%s", "other", 1)), "application/json", 404, `"statusCode":404`},
		{"damaged", "eyJAdHlwZ", "text/html", 400, "incomplete or damaged"},
		{"damaged json", "!!", "application/json", 400, `oob: not an out-of-band invitation`},
		{"not an invitation", oobParam(`{"@type":"https://didcomm.org/present-proof/2.0/request-presentation"}`), "text/html", 400, "incomplete or damaged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "https://verifier.example.com/?oob="+tc.oob, nil)
			r.Header.Set("Accept", tc.accept)
			w := httptest.NewRecorder()
			g.ServeInvitationLink(w, r, "https://verifier.example.com", states)
			if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.says) {
				t.Fatalf("%d, want %d with %q:\n%s", w.Code, tc.status, tc.says, w.Body)
			}
			if strings.Contains(tc.accept, "html") && w.Header().Get("Content-Security-Policy") != pageCSP {
				t.Fatalf("CSP %q", w.Header().Get("Content-Security-Policy"))
			}
		})
	}
}

func TestPageQRURL(t *testing.T) {
	const inv = `{"@type":"https://didcomm.org/out-of-band/1.1/invitation","@id":"x","label":"v"}`
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/?utm=1&oob="+oobParam(inv), nil)
	r.Header.Set("Accept", "text/html")
	w := httptest.NewRecorder()
	states := fakeStates{"x": fakeRecord{backend.StateRequestSent, inv}}
	(&Gateway{Logger: zap.NewNop()}).ServeInvitationLink(w, r, "https://verifier.example.com", states)
	// The page shows the canonical long URL of the public URL, whatever
	// host or extra parameters the browser came with.
	if want := `value="https://verifier.example.com?oob=` + oobParam(inv) + `"`; !strings.Contains(w.Body.String(), want) {
		t.Fatalf("page lacks %s:\n%s", want, w.Body)
	}
	if !strings.Contains(w.Body.String(), `href="didcomm://invite?oob=`+oobParam(inv)+`"`) {
		t.Fatalf("no didcomm link:\n%s", w.Body)
	}
}

// With no verifier to vouch for it, a link's invitation is an unknown
// one: anyone can write a label, a comment and a service of their own
// into an ?oob= link.
func TestInvitationLinkWithoutVerifier(t *testing.T) {
	const inv = `{"@type":"https://didcomm.org/out-of-band/1.1/invitation","@id":"x","label":"Your Bank (official)"}`
	for _, accept := range []string{"text/html", "application/json"} {
		r := httptest.NewRequest(http.MethodGet, "https://verifier.example.com/?oob="+oobParam(inv), nil)
		r.Header.Set("Accept", accept)
		w := httptest.NewRecorder()
		(&Gateway{Logger: zap.NewNop()}).ServeInvitationLink(w, r, "https://verifier.example.com", nil)
		if w.Code != http.StatusNotFound || strings.Contains(w.Body.String(), "Your Bank") {
			t.Errorf("%s: %d %s; want 404 without the link's label", accept, w.Code, w.Body)
		}
	}
}

// Standard base64 in an unescaped query reads its '+' as a space; a
// space is never base64, so it is read back as '+'.
func TestOOBParamPlusReadAsSpace(t *testing.T) {
	const inv = `{"@type":"https://didcomm.org/out-of-band/1.1/invitation","@id":"x","label":"Verifier ~>"}`
	std := base64.StdEncoding.EncodeToString([]byte(inv))
	if !strings.Contains(std, "+") {
		t.Fatalf("the test's invitation must encode with a '+': %s", std)
	}
	r := httptest.NewRequest(http.MethodGet, "https://verifier.example.com/?oob="+std, nil)
	r.Header.Set("Accept", "text/html")
	w := httptest.NewRecorder()
	states := fakeStates{"x": fakeRecord{backend.StateRequestSent, inv}}
	(&Gateway{Logger: zap.NewNop()}).ServeInvitationLink(w, r, "https://verifier.example.com", states)
	if w.Code != http.StatusOK {
		t.Fatalf("standard base64 with an unescaped '+': %d", w.Code)
	}
}

func TestWantsHTML(t *testing.T) {
	for accept, want := range map[string]bool{
		"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8": true,
		"application/json": false, "*/*": false, "": false, "TEXT/HTML": true,
		"text/html;q=0, application/json": false, "text/html; q=0.5": true, "text/html;level=1;q=0.0": false,
	} {
		if wantsHTML(accept) != want {
			t.Errorf("wantsHTML(%q) = %v", accept, !want)
		}
	}
}

// failingStates is a verifier whose storage fails.
type failingStates struct{}

func (failingStates) InvitationState(context.Context, string) (string, json.RawMessage, error) {
	return "", nil, errors.Join(backend.ErrUnavailable, errors.New("storage: i/o timeout"))
}

// A link whose invitation no verifier could vouch for (storage failing)
// is not shown: 503, not the link's own label.
func TestMadeUpLinkWhileStorageFails(t *testing.T) {
	const inv = `{"@type":"https://didcomm.org/out-of-band/1.1/invitation","@id":"x","label":"Your Bank (official)"}`
	for _, accept := range []string{"text/html", "application/json"} {
		r := httptest.NewRequest(http.MethodGet, "https://verifier.example.com/?oob="+oobParam(inv), nil)
		r.Header.Set("Accept", accept)
		w := httptest.NewRecorder()
		(&Gateway{Logger: zap.NewNop()}).ServeInvitationLink(w, r, "https://verifier.example.com", failingStates{})
		if w.Code != http.StatusServiceUnavailable || strings.Contains(w.Body.String(), "Your Bank") {
			t.Errorf("%s: %d %s; want 503 without the link's label", accept, w.Code, w.Body)
		}
	}
}
