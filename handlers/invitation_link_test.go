package handlers_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/handlers"
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/proofs"
	"github.com/proofgate/proofgate/internal/shorturl"
	"github.com/proofgate/proofgate/internal/store"
)

const verifierURL = "https://verifier.example.com"

// localKeeper is what internal/local.Local forwards to its proofs.Service
// of the short URLs and invitations it keeps.
type localKeeper struct {
	backend.Backend
	svc *proofs.Service
}

func (k localKeeper) ResolveShortURL(ctx context.Context, id string) (backend.ShortURL, error) {
	return k.svc.ResolveShortURL(ctx, id)
}

func (k localKeeper) InvitationState(ctx context.Context, invitationID string) (string, json.RawMessage, error) {
	return k.svc.InvitationState(ctx, invitationID)
}

var _ handlers.InvitationStater = localKeeper{}

// oneBackend routes every org to one backend.
type oneBackend struct{ b backend.Backend }

func (r oneBackend) Route(string) (backend.Backend, backend.Org, bool) {
	return r.b, backend.Org{}, true
}
func (r oneBackend) All() []backend.Backend { return []backend.Backend{r.b} }
func (r oneBackend) Exclusive(string) bool  { return false }
func (r oneBackend) Orgs() []string         { return nil }

// localGateway is a Gateway over a real proofs.Service (invitation_ttl
// one hour, its clock *now) holding one indy request, made with a short
// URL in its record when short is set; the request's label carries
// characters JSON escapes, so the stored invitation is compared as stored.
func localGateway(t *testing.T, now *time.Time, short bool) (*handlers.Gateway, localKeeper, backend.OOBResult, certmagic.Storage) {
	t.Helper()
	st := &certmagic.FileStorage{Path: t.TempDir()}
	svc, err := proofs.New(st, proofs.Config{PublicURL: verifierURL, Endpoint: verifierURL + "/didcomm",
		InvitationTTL: time.Hour, Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Create(context.Background(), backend.Org{ID: "org-1"}, backend.OOBRequest{
		RequestType: backend.RequestIndy, ProtocolVersion: backend.ProtocolV2, ReuseConnection: true,
		Label: "Bank & <Co>", Comment: "Over 18? Age >= 18",
		IsShortenURL: short, ShortURLExpiresAt: now.Add(7 * 24 * time.Hour),
		Indy: &backend.IndyProofRequest{Name: "age", Version: "1.0",
			RequestedPredicates: map[string]backend.IndyPredicate{"p": {Name: "age", PType: ">=", PValue: 18}}}})
	if err != nil {
		t.Fatal(err)
	}
	k := localKeeper{svc: svc}
	return &handlers.Gateway{Logger: zap.NewNop(), Backends: oneBackend{k}, ShortURLBase: verifierURL + "/url/"}, k, res, st
}

func get(serve func(http.ResponseWriter, *http.Request), url, accept string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, url, nil)
	r.Header.Set("Accept", accept)
	w := httptest.NewRecorder()
	serve(w, r)
	return w
}

func wantAnswer(t *testing.T, what string, w *httptest.ResponseRecorder, status int, says string) {
	t.Helper()
	if w.Code != status || !strings.Contains(w.Body.String(), says) {
		t.Errorf("%s: %d, want %d with %q:\n%.600s", what, w.Code, status, says, w.Body)
	}
}

// TestInvitationLinkShowsOnlyTheRecordsInvitation: the long URL of a
// local record's invitation shows its page, but an invitation with the
// same @id (derived from the record id, which logs and webhooks carry, by
// a public mask) and anything else in it is answered as an unknown one,
// to browsers and JSON clients alike: the verifier's domain does not
// show another's label, comment and endpoint.
func TestInvitationLinkShowsOnlyTheRecordsInvitation(t *testing.T) {
	now := time.Now()
	g, k, res, _ := localGateway(t, &now, false)
	serve := func(w http.ResponseWriter, r *http.Request) { g.ServeInvitationLink(w, r, verifierURL, k) }

	wantAnswer(t, "the record's invitation", get(serve, res.InvitationURL, "text/html"), 200, "Bank &amp; &lt;Co&gt;")
	wantAnswer(t, "the record's invitation, as JSON", get(serve, res.InvitationURL, "application/json"), 200, `"@id"`)

	rid, _ := proofs.ParseID(res.ProofRecord.ID)
	_, oob, _ := strings.Cut(res.InvitationURL, "?oob=")
	linked, err := base64.RawURLEncoding.DecodeString(oob)
	if err != nil {
		t.Fatal(err)
	}
	another, _ := json.Marshal(map[string]any{"@type": "https://didcomm.org/out-of-band/1.1/invitation",
		"@id": proofs.InvitationID(rid).String(), "label": "Your Bank (official)",
		"services": []any{map[string]any{"type": "did-communication", "serviceEndpoint": "https://attacker.example/",
			"recipientKeys": []string{"did:key:z6MkAttacker"}}}})
	forgeries := map[string][]byte{
		"another's invitation with the record's @id": another,
		"the record's invitation relabelled": []byte(strings.Replace(string(linked),
			`"label":"Bank & <Co>"`, `"label":"Your Bank (official)"`, 1)),
		"the record's invitation with another endpoint": []byte(strings.ReplaceAll(string(linked),
			`"serviceEndpoint":"`+verifierURL+`/didcomm"`, `"serviceEndpoint":"https://attacker.example/"`)),
	}
	for name, forged := range forgeries {
		if string(forged) == string(linked) {
			t.Fatalf("%s: not changed", name)
		}
		url := verifierURL + "?oob=" + base64.RawURLEncoding.EncodeToString(forged)
		wantAnswer(t, name, get(serve, url, "text/html"), 404, "unknown or has expired")
		wantAnswer(t, name+", as JSON", get(serve, url, "application/json"), 404, `"statusCode":404`)
	}
}

// TestInvitationLinksOfExpiredInvitationClosed: past invitation_ttl,
// before the sweeper has abandoned the record, the short and the long URL
// answer browsers as for a closed request (410), as a presentation would
// be refused; before it, both show the page.
func TestInvitationLinksOfExpiredInvitationClosed(t *testing.T) {
	now := time.Now()
	g, k, res, _ := localGateway(t, &now, true)
	short := func(w http.ResponseWriter, r *http.Request) { g.ResolveShortURL(w, r, res.ShortURLID) }
	long := func(w http.ResponseWriter, r *http.Request) { g.ServeInvitationLink(w, r, verifierURL, k) }

	now = now.Add(time.Hour - time.Millisecond)
	wantAnswer(t, "short URL before the TTL", get(short, verifierURL+"/url/"+res.ShortURLID, "text/html"), 200, "Bank &amp; &lt;Co&gt;")
	wantAnswer(t, "long URL before the TTL", get(long, res.InvitationURL, "text/html"), 200, "Bank &amp; &lt;Co&gt;")

	now = now.Add(time.Millisecond)
	wantAnswer(t, "short URL at the TTL", get(short, verifierURL+"/url/"+res.ShortURLID, "text/html"), 410, "closed")
	wantAnswer(t, "long URL at the TTL", get(long, res.InvitationURL, "text/html"), 410, "closed")
	if rec, err := k.svc.LoadRecord(context.Background(), res.ProofRecord.ID); err != nil || rec.State != backend.StateRequestSent {
		t.Fatalf("the record was changed: %+v, %v", rec, err)
	}
}

// TestStoredShortURLOfLocalRecordState: a short URL stored as a document
// of its own, as earlier versions stored a local record's, answers
// browsers by its record's state as a record's own short URL does: the
// page while it waits, 410 once answered, closed or expired; one of an
// invitation no local record holds still shows its page.
func TestStoredShortURLOfLocalRecordState(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		then   func(t *testing.T, k localKeeper, res backend.OOBResult, now *time.Time)
		status int
		says   string
	}{
		{"waiting", func(*testing.T, localKeeper, backend.OOBResult, *time.Time) {}, 200, "Bank &amp; &lt;Co&gt;"},
		{"closed", func(t *testing.T, k localKeeper, res backend.OOBResult, _ *time.Time) {
			if _, err := k.svc.Abandon(ctx, res.ProofRecord.ID, "closed"); err != nil {
				t.Fatal(err)
			}
		}, 410, "was closed"},
		{"answered", func(t *testing.T, k localKeeper, res backend.OOBResult, _ *time.Time) {
			if _, err := k.svc.MarkPresentationReceived(ctx, res.ProofRecord.ID, proofs.Presentation{}); err != nil {
				t.Fatal(err)
			}
		}, 410, "already been answered"},
		{"expired", func(_ *testing.T, _ localKeeper, _ backend.OOBResult, now *time.Time) {
			*now = now.Add(2 * time.Hour)
		}, 410, "was closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Now()
			g, k, res, st := localGateway(t, &now, false)
			g.ShortURLs = shorturl.New(store.New(st, "shorturls"), 7*24*time.Hour)
			id, _, err := g.ShortURLs.Create(ctx, "org-1", res.InvitationURL, res.Invitation)
			if err != nil {
				t.Fatal(err)
			}
			tc.then(t, k, res, &now)
			serve := func(w http.ResponseWriter, r *http.Request) { g.ResolveShortURL(w, r, id) }
			wantAnswer(t, "page", get(serve, verifierURL+"/url/"+id, "text/html"), tc.status, tc.says)
			wantAnswer(t, "JSON", get(serve, verifierURL+"/url/"+id, "application/json"), 200, `"@id"`)
		})
	}

	t.Run("not a local record's", func(t *testing.T) {
		now := time.Now()
		g, _, _, st := localGateway(t, &now, false)
		g.ShortURLs = shorturl.New(store.New(st, "shorturls"), 7*24*time.Hour)
		inv := `{"@type":"https://didcomm.org/out-of-band/1.1/invitation","@id":"6e2e0b8c-5d1f-4d2a-9f3e-1c2b3a4d5e6f","label":"Agent Verifier"}`
		id, _, err := g.ShortURLs.Create(ctx, "org-1", "https://agent.example.com?oob="+base64.RawURLEncoding.EncodeToString([]byte(inv)), json.RawMessage(inv))
		if err != nil {
			t.Fatal(err)
		}
		serve := func(w http.ResponseWriter, r *http.Request) { g.ResolveShortURL(w, r, id) }
		wantAnswer(t, "page", get(serve, verifierURL+"/url/"+id, "text/html"), 200, "Agent Verifier")
	})
}
