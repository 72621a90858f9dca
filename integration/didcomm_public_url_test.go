package integration

import (
	"net/http"
	"strings"
	"testing"
)

// didcomm_endpoint on public_url itself (one URL for wallets, as some
// deployments have): its POSTs are DIDComm's, while the invitation links
// and the site's own pages there are served as without it.
func TestDIDCommOnPublicURL(t *testing.T) {
	tester := newTester(t)
	site := strings.Replace(proofgateSite(""), "public_url "+base+"\n", "public_url "+base+"\n\t\t\tdidcomm_endpoint "+base+"\n", 1)
	if site == proofgateSite("") {
		t.Fatal("the site has no public_url line to add didcomm_endpoint to")
	}
	tester.InitServer(globalOptions(t.TempDir())+site, "caddyfile")
	settle(t)
	unloadAtEnd(t)
	r := postJSON(t, oobPath(orgA, "indy"), keyA, indyBody)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	long := r.json(t)["data"].(map[string]any)["invitationUrl"].(string)
	if p := do(t, http.MethodGet, pathOf(t, long), "", browserAccept); p.status != http.StatusOK {
		t.Errorf("the long invitation URL in a browser: %d %s", p.status, p.body)
	}
	if o := do(t, http.MethodGet, "/", "", browserAccept); o.status != http.StatusOK {
		t.Errorf("the site's own page at public_url: %d %s", o.status, o.body)
	}
	// A DIDComm message is still DIDComm's: a damaged envelope gets the
	// endpoint's one answer to senders' errors, not the site's page.
	if d := do(t, http.MethodPost, "/", `{"protected":"x"}`, "Content-Type: application/didcomm-envelope-enc"); d.status != http.StatusBadRequest {
		t.Errorf("a DIDComm POST at public_url: %d %s", d.status, d.body)
	}
}
