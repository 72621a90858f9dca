package integration

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/testenv/webhookrx"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// GET /proofs/{id} on agents' records (credo-controller, ACA-Py), and the
// webhooks of the changes proofgate causes there (creation, accept) and
// observes (a read that shows a new state).
func TestUpstreamReadAndWebhooks(t *testing.T) {
	credo := openapitest.NewCredo(t, openapitest.CredoOptions{Tenants: []string{"tenant-a"}})
	acapy := openapitest.NewACAPy(t, openapitest.ACAPyOptions{APIKey: "acapy-admin-key"})
	rx := webhookrx.Start(t, 0)
	t.Setenv("PG_TEST_WEBHOOK_SECRET", webhookrx.Secret)
	tester := newTester(t)
	tester.InitServer(globalOptions(t.TempDir())+`
`+base+` {
	proofgate {
		backend credo credo `+credo.URL+` {
			token `+openapitest.CredoRootToken+`
		}
		backend acapy acapy `+acapy.URL+` {
			api_key acapy-admin-key
		}
		org `+orgA+` credo tenant tenant-a
		org `+orgB+` acapy
		default_backend credo
		public_url `+base+`
		auth {
			api_key `+keyA+` org `+orgA+`
			api_key `+keyB+` org `+orgB+`
		}
		webhook `+rx.URL+` {
			secret {env.PG_TEST_WEBHOOK_SECRET}
			allow_private
		}
	}
}
`, "caddyfile")
	settle(t)
	unloadAtEnd(t)

	t.Run("credo", func(t *testing.T) {
		r := postJSON(t, oobPath(orgA, "indy"), keyA, indyBody)
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		id := r.json(t)["data"].(map[string]any)["proofRecordId"].(string)
		g := getRecord(t, id, keyA)
		if g.status != http.StatusOK || g.json(t)["id"] != id || g.json(t)["state"] != "request-sent" || g.json(t)["orgId"] != orgA {
			t.Fatalf("GET: %d %s", g.status, g.body)
		}
		wantBody(t, getRecord(t, id, keyB), http.StatusForbidden, `{"statusCode":403,"error":"Forbidden"}`)
		credo.SetState("tenant-a", id, "presentation-received")
		if g := getRecord(t, id, keyA); g.json(t)["state"] != "presentation-received" {
			t.Fatalf("GET: %s", g.body)
		}
		if a := postJSON(t, acceptPath(id), keyA, ""); a.status != http.StatusOK {
			t.Fatalf("accept: %d %s", a.status, a.body)
		}
		if g := getRecord(t, id, keyA); g.json(t)["state"] != "done" {
			t.Fatalf("GET: %s", g.body)
		}
		waitStates(t, rx, id, "request-sent", "presentation-received", "done")
	})

	// A create does not store its first state (request-sent) as observed:
	// the first read of a record proofgate created, already in a new
	// state, still reports the change from request-sent.
	t.Run("credo/first read after a change", func(t *testing.T) {
		r := postJSON(t, oobPath(orgA, "indy"), keyA, indyBody)
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		id := r.json(t)["data"].(map[string]any)["proofRecordId"].(string)
		credo.SetState("tenant-a", id, "presentation-received")
		if g := getRecord(t, id, keyA); g.json(t)["state"] != "presentation-received" {
			t.Fatalf("GET: %s", g.body)
		}
		if g := getRecord(t, id, keyA); g.json(t)["state"] != "presentation-received" {
			t.Fatalf("GET: %s", g.body)
		}
		waitStates(t, rx, id, "request-sent", "presentation-received")
	})

	t.Run("acapy", func(t *testing.T) {
		r := postJSON(t, oobPath(orgB, "presentationExchange"), keyB, strings.Replace(peBody, `"isShortenUrl":true`, `"isShortenUrl":false`, 1))
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		id := r.json(t)["data"].(map[string]any)["proofRecordId"].(string)
		g := getRecord(t, id, keyB)
		if g.status != http.StatusOK || g.json(t)["id"] != id || g.json(t)["state"] != "request-sent" || g.json(t)["threadId"] == "" {
			t.Fatalf("GET: %d %s", g.status, g.body)
		}
		acapy.SetState("", id, "presentation-received")
		if g := getRecord(t, id, keyB); g.json(t)["state"] != "presentation-received" {
			t.Fatalf("GET: %s", g.body)
		}
		waitStates(t, rx, id, "request-sent", "presentation-received")
	})
}

// waitStates waits for the webhook events of record id: one per state
// (deliveries are concurrent, so not necessarily in order; previousState
// orders them).
func waitStates(t *testing.T, rx *webhookrx.Receiver, id string, states ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var got []string
		for _, d := range webhookrx.Unique(rx.Deliveries()) {
			if d.Event.Data.ProofRecordID == id {
				got = append(got, d.Event.Data.State)
			}
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(states))
		if slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook states of %s: %v, want %v", id, got, states)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
