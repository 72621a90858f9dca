package integration

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/proofs"
	"github.com/proofgate/proofgate/internal/shorturl"
	"github.com/proofgate/proofgate/internal/store"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// longInvitation is the invitation JSON a long ?oob= URL carries.
func longInvitation(t *testing.T, long string) []byte {
	t.Helper()
	_, oob, ok := strings.Cut(long, "?oob=")
	if !ok {
		t.Fatalf("no oob parameter in %s", long)
	}
	inv, err := base64.RawURLEncoding.DecodeString(oob)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// TestInvitationPageForgedLongURL: the verifier's long URL shows
// its record's invitation, whose label JSON storage escapes ("&", "<"),
// but an invitation carrying the same @id (derived from the record id by
// a public mask) with another label or endpoint is answered as an unknown
// invitation, to browsers and wallets.
func TestInvitationPageForgedLongURL(t *testing.T) {
	startCaddy(t, "")
	r := postJSON(t, oobPath(orgA, "indy"), keyA, pageBody)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	data := r.json(t)["data"].(map[string]any)
	long := data["longInvitationUrl"].(string)
	if p := do(t, http.MethodGet, pathOf(t, long), "", browserAccept); p.status != http.StatusOK || !strings.Contains(string(p.body), `<span class="label">Bank &amp; &lt;Co&gt;</span>`) {
		t.Fatalf("the record's invitation: %d\n%s", p.status, p.body)
	}

	genuine := string(longInvitation(t, long))
	rid, ok := proofs.ParseID(data["proofRecordId"].(string))
	if !ok {
		t.Fatalf("record id %v", data["proofRecordId"])
	}
	another, _ := json.Marshal(map[string]any{"@type": "https://didcomm.org/out-of-band/1.1/invitation",
		"@id": proofs.InvitationID(rid).String(), "label": "Your Bank (official)",
		"services": []any{map[string]any{"type": "did-communication", "serviceEndpoint": "https://attacker.example/",
			"recipientKeys": []string{"did:key:z6MkAttacker"}}}})
	for name, forged := range map[string]string{
		"another's invitation": string(another),
		"relabelled":           strings.Replace(genuine, `"label":"Bank & <Co>"`, `"label":"Your Bank (official)"`, 1),
		"another endpoint":     strings.ReplaceAll(genuine, `"serviceEndpoint":"`+base+`/didcomm"`, `"serviceEndpoint":"https://attacker.example/"`),
	} {
		t.Run(name, func(t *testing.T) {
			if forged == genuine {
				t.Fatal("not changed")
			}
			path := "/?oob=" + base64.RawURLEncoding.EncodeToString([]byte(forged))
			p := do(t, http.MethodGet, path, "", browserAccept)
			if p.status != http.StatusNotFound || !strings.Contains(string(p.body), "unknown or has expired") || strings.Contains(string(p.body), "Your Bank") {
				t.Fatalf("page: %d\n%s", p.status, p.body)
			}
			if j := do(t, http.MethodGet, path, "", "Accept: application/json"); j.status != http.StatusNotFound {
				t.Fatalf("JSON: %d %s", j.status, j.body)
			}
		})
	}
}

// TestInvitationPageStoredShortURL: a local record's short URL
// stored as a document of its own, as earlier versions stored it, shows
// the page while the record waits and, once a wallet has answered,
// answers browsers 410 as the record's long URL does; wallets asking for
// JSON still get the invitation.
func TestInvitationPageStoredShortURL(t *testing.T) {
	_, dir := startCaddy(t, "")
	r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, strings.Replace(peBody, `"isShortenUrl":true`, `"isShortenUrl":false`, 1))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	long := r.json(t)["data"].(map[string]any)["longInvitationUrl"].(string)
	urls := shorturl.New(store.New(&certmagic.FileStorage{Path: dir}, "shorturls"), time.Hour)
	id, _, err := urls.Create(context.Background(), orgA, long, longInvitation(t, long))
	if err != nil {
		t.Fatal(err)
	}
	short := "/url/" + id
	if p := do(t, http.MethodGet, short, "", browserAccept); p.status != http.StatusOK {
		t.Fatalf("before an answer: %d %s", p.status, p.body)
	}

	present(t, wallet.NewT(t, wallet.Options{}), long)
	for _, link := range []string{short, pathOf(t, long)} {
		if p := do(t, http.MethodGet, link, "", browserAccept); p.status != http.StatusGone || !strings.Contains(string(p.body), "already been answered") {
			t.Fatalf("%s once answered: %d %s", link, p.status, p.body)
		}
	}
	if j := do(t, http.MethodGet, short, "", "Accept: application/json"); j.status != http.StatusOK {
		t.Fatalf("JSON: %d %s", j.status, j.body)
	}
}

// madeUpInvitation is an invitation no verifier made: a label, a comment
// and a DIDComm service of an attacker's.
const madeUpInvitation = `{"@type":"https://didcomm.org/out-of-band/1.1/invitation","@id":"f1b1f0a2-6d43-4a5e-9d8e-3c4b5a6d7e8f",` +
	`"label":"Your Bank (official)","requests~attach":[{"@id":"request-0","mime-type":"application/json",` +
	`"data":{"json":{"@type":"https://didcomm.org/present-proof/2.0/request-presentation","comment":"Your account is locked: share your ID to unlock it"}}}],` +
	`"services":[{"id":"#inline","type":"did-communication","recipientKeys":["did:key:z6MkAttacker"],"serviceEndpoint":"https://attacker.example/"}]}`

// wantNoMadeUpPage fails if path shows the made-up invitation, as a page
// or as JSON.
func wantNoMadeUpPage(t *testing.T, path string) {
	t.Helper()
	for _, accept := range []string{browserAccept, "Accept: application/json"} {
		if r := do(t, http.MethodGet, path, "", accept); strings.Contains(string(r.body), "Your Bank (official)") {
			t.Errorf("GET %s (%s): a made-up invitation shown on the verifier's origin (%d)", path[:10], accept, r.status)
		}
	}
}

// An agent-only handler's public_url shows no invitation page: no local
// verifier vouches for what an ?oob= link carries, and anyone can write
// one. (Until the twenty-first session it showed any link's label,
// comment and QR code, under the verifier's origin.)
func TestMadeUpInvitationAgentOnly(t *testing.T) {
	credo := openapitest.NewCredo(t, openapitest.CredoOptions{})
	startSite(t, `
		public_url `+base+`
		backend credo credo `+credo.URL+` {
			token `+openapitest.CredoDedicatedToken+`
		}
		auth {
			api_key `+keyA+` org `+orgA+`
		}`)
	path := "/?oob=" + base64.RawURLEncoding.EncodeToString([]byte(madeUpInvitation))
	wantNoMadeUpPage(t, path)
	if r := do(t, http.MethodGet, path, "", browserAccept); string(r.body) != "passed through" {
		t.Errorf("the link was not passed on: %d %s", r.status, r.body)
	}
}

// Beside a local verifier on another path, the handler's public_url asks
// the local verifiers, which hold no such invitation: 404.
func TestMadeUpInvitationBesideLocal(t *testing.T) {
	startSite(t, `
		public_url `+base+`
		backend local local {
			public_url `+base+`/invite
		}
		auth {
			api_key `+keyA+` org `+orgA+`
		}`)
	oob := base64.RawURLEncoding.EncodeToString([]byte(madeUpInvitation))
	for _, path := range []string{"/invite?oob=" + oob, "/?oob=" + oob} {
		wantNoMadeUpPage(t, path)
		if r := do(t, http.MethodGet, path, "", browserAccept); r.status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path[:8], r.status)
		}
	}
}
