package webhook

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/outbox"
)

const otherSiteSecret = "whsec_QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWY="

// Two sites on one storage share the webhook deliverer and send to one
// receiver URL, each with its own secret and its own orgs. Site A's org-a
// event must go out signed with site A's secret; the newest handler (site
// B, whose endpoint takes only org-b) knows the URL too, so it takes the
// message and signs org-a's event with B's secret.
func TestSameURLTwoSitesSignsWithTheStagersSecret(t *testing.T) {
	keyA, _ := ParseSecret(testSecret)
	keyB, err := ParseSecret(otherSiteSecret)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	signer := map[string]string{} // event id → "A", "B" or "?"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id, ts, sig := r.Header.Get(HeaderID), r.Header.Get(HeaderTimestamp), r.Header.Get(HeaderSignature)
		who := "?"
		if Verify(keyA, id, ts, sig, body, time.Now(), 5*time.Minute) == nil {
			who = "A"
		} else if Verify(keyB, id, ts, sig, body, time.Now(), 5*time.Minute) == nil {
			who = "B"
		}
		mu.Lock()
		signer[id] = who
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	siteA, del, results := newTestDispatcher(t, t.TempDir(), Config{URL: srv.URL, Secret: testSecret, Orgs: []string{"org-a"}, AllowPrivate: true})
	sharing(t, del, Config{URL: srv.URL, Secret: otherSiteSecret, Orgs: []string{"org-b"}, AllowPrivate: true})
	del.Start()
	stageAndCommit(t, siteA, change("ev-a", "", backend.StateRequestSent, "org-a"))
	if s := waitFinal(t, results); s.State != outbox.StateSent {
		t.Fatalf("site A's event: %+v", s)
	}
	mu.Lock()
	defer mu.Unlock()
	if signer["ev-a"] != "A" {
		t.Fatalf("site A's org-a event was signed with site %q's secret", signer["ev-a"])
	}
}
