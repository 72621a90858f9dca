package integration

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/testenv/eventrec"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
	"github.com/proofgate/proofgate/internal/testenv/webhookrx"
)

// lifecycleConfig is a local verifier with a webhook to rx and Caddy's
// events app with a recording subscriber.
func lifecycleConfig(t *testing.T, rx *webhookrx.Receiver, dataDir ...string) {
	t.Helper()
	dir := t.TempDir()
	if len(dataDir) > 0 {
		dir = dataDir[0]
	}
	t.Setenv("PG_TEST_WEBHOOK_SECRET", webhookrx.Secret)
	tester := newTester(t)
	global := strings.Replace(globalOptions(dir), "{\n", `{
	events {
		on proofgate.proof_state_changed proofgate_recorder
	}
`, 1)
	tester.InitServer(global+`
`+base+` {
	proofgate {
		backend local local {
			public_url `+base+`
			allow_private_endpoints
		}
		auth {
			api_key `+keyA+` org `+orgA+`
			api_key `+keyB+` org `+orgB+`
		}
		webhook `+rx.URL+` {
			secret {env.PG_TEST_WEBHOOK_SECRET}
			include_record
			allow_private
			timeout 5s
		}
	}
}
`, "caddyfile")
	settle(t)
	unloadAtEnd(t)
}

func getRecord(t *testing.T, id, key string) response {
	t.Helper()
	return do(t, http.MethodGet, "/proofs/"+id, "", "Authorization: Bearer "+key)
}

// present answers the invitation of a 4.1 response with a presentation
// exchange presentation from w, through /didcomm.
func present(t *testing.T, w *wallet.T, invitationURL string) *wallet.Invitation {
	t.Helper()
	inv := w.ReadInvitation(invitationURL)
	env := w.Present(inv, signedVP(t, w, inv), false)
	if d := do(t, http.MethodPost, "/didcomm", string(env), "Content-Type: application/didcomm-envelope-enc"); d.status != http.StatusAccepted {
		t.Fatalf("presentation: %d %s", d.status, d.body)
	}
	return inv
}

// A full exchange on the local verifier: every transition reaches the
// webhook receiver (down for its first attempts) signed, once per change
// (allowing duplicates of one webhook-id), and Caddy's events app; GET
// /proofs/{id} shows each state; the record gets its connectionId.
func TestLifecycleWebhooksEventsAndRead(t *testing.T) {
	eventrec.Reset()
	rx := webhookrx.Start(t, 2)
	lifecycleConfig(t, rx)

	r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, strings.Replace(peBody, `"isShortenUrl":true`, `"isShortenUrl":false`, 1))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	data := r.json(t)["data"].(map[string]any)
	id := data["proofRecordId"].(string)

	g := getRecord(t, id, keyA)
	if g.status != http.StatusOK || g.json(t)["state"] != "request-sent" || g.json(t)["id"] != id {
		t.Fatalf("GET: %d %s", g.status, g.body)
	}
	wantBody(t, getRecord(t, id, keyB), http.StatusForbidden, `{"statusCode":403,"error":"Forbidden"}`)
	if g := getRecord(t, uuid.NewString(), keyA); g.status != http.StatusNotFound {
		t.Fatalf("GET unknown: %d %s", g.status, g.body)
	}
	if g := getRecord(t, "not-a-uuid", keyA); g.status != http.StatusBadRequest {
		t.Fatalf("GET bad id: %d %s", g.status, g.body)
	}
	if g := do(t, http.MethodGet, "/proofs/"+id, ""); g.status != http.StatusUnauthorized {
		t.Fatalf("GET without credentials: %d", g.status)
	}
	if d := do(t, http.MethodDelete, "/proofs/"+id, "", "Authorization: Bearer "+keyA); d.status != http.StatusMethodNotAllowed || d.header.Get("Allow") != "GET, HEAD" {
		t.Fatalf("DELETE: %d Allow %q", d.status, d.header.Get("Allow"))
	}

	w := wallet.NewT(t, wallet.Options{})
	present(t, w, data["invitationUrl"].(string))
	rec := getRecord(t, id, keyA).json(t)
	if rec["state"] != "presentation-received" || rec["connectionId"] == nil || rec["connectionId"] == "" {
		t.Fatalf("after the presentation: %v", rec)
	}
	a := postJSON(t, acceptPath(id), keyA, "")
	if a.status != http.StatusOK {
		t.Fatalf("accept: %d %s", a.status, a.body)
	}
	ack := a.json(t)["metadata"].(map[string]any)["ack"].(map[string]any)
	if ack["sent"] != true {
		t.Fatalf("ack %v", ack)
	}
	if ack := w.Next(); ack.Type() != "https://didcomm.org/present-proof/2.0/ack" {
		t.Fatalf("ack %s", ack.Raw)
	}
	if rec := getRecord(t, id, keyA).json(t); rec["state"] != "done" {
		t.Fatalf("after accept: %v", rec)
	}

	got := rx.WaitFor(t, 90*time.Second, "request-sent", "presentation-received", "done")
	if len(got) != 3 {
		t.Fatalf("%d distinct events, want 3: %+v", len(got), got)
	}
	prev := map[string]string{"request-sent": "", "presentation-received": "request-sent", "done": "presentation-received"}
	for _, d := range got {
		ev := d.Event
		if ev.Type != "proofgate.proof.state_changed" || ev.Data.ProofRecordID != id || ev.Data.OrgID != orgA ||
			ev.Data.ThreadID != data["proofRecordThId"] || ev.Data.PreviousState != prev[ev.Data.State] ||
			ev.Data.Record == nil || ev.Data.Record.State != ev.Data.State || ev.CreatedAt == "" {
			t.Errorf("event %+v", ev)
		}
	}
	if rx.Attempts() < 3+2 {
		t.Errorf("receiver saw %d attempts; it was down for 2", rx.Attempts())
	}

	// The outcomes are counted just after the receiver answered.
	for series, want := range map[string]float64{
		`caddy_proofgate_outbox_deliveries_total{kind="webhook",outcome="sent"}`:  3,
		`caddy_proofgate_outbox_deliveries_total{kind="webhook",outcome="retry"}`: 2,
		`caddy_proofgate_outbox_deliveries_total{kind="ack",outcome="sent"}`:      1,
	} {
		deadline := time.Now().Add(10 * time.Second)
		for metricValue(t, series) < want {
			if time.Now().After(deadline) {
				t.Fatalf("%s = %v, want at least %v", series, metricValue(t, series), want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	var states []string
	for _, e := range eventrec.Recorded() {
		if e.Name == "proofgate.proof_state_changed" && e.Data["proofRecordId"] == id {
			states = append(states, e.Data["state"].(string))
		}
	}
	if strings.Join(states, ",") != "request-sent,presentation-received,done" {
		t.Fatalf("Caddy events: %v", states)
	}
}

// autoAcceptProof always: the record reaches done, and the wallet gets
// its ack, with no call to accept-presentation; never waits for one.
func TestAutoAcceptAlways(t *testing.T) {
	rx := webhookrx.Start(t, 0)
	lifecycleConfig(t, rx)
	for _, tt := range []struct{ mode, want string }{
		{"always", "done"},
		{"contentApproved", "done"},
		{"never", "presentation-received"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			body := strings.Replace(peBody, `"isShortenUrl":true`, `"isShortenUrl":false,"autoAcceptProof":"`+tt.mode+`"`, 1)
			r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, body)
			if r.status != http.StatusCreated {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
			data := r.json(t)["data"].(map[string]any)
			id := data["proofRecordId"].(string)
			w := wallet.NewT(t, wallet.Options{})
			present(t, w, data["invitationUrl"].(string))
			rec := getRecord(t, id, keyA).json(t)
			if rec["state"] != tt.want || rec["autoAcceptProof"] != tt.mode {
				t.Fatalf("record %v", rec)
			}
			if tt.want != "done" {
				return
			}
			if ack := w.Next(); ack.Type() != "https://didcomm.org/present-proof/2.0/ack" {
				t.Fatalf("ack %s", ack.Raw)
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				m := getRecord(t, id, keyA).json(t)["metadata"].(map[string]any)
				if a, _ := m["ack"].(map[string]any); a["sent"] == true {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("metadata.ack never said sent: %v", m)
				}
				time.Sleep(50 * time.Millisecond)
			}
			rx.WaitFor(t, 30*time.Second, "done")
		})
	}
}

// signedVP is a presentation of one self-issued credential, signed with
// the request's challenge: what the local verifier accepts.
func signedVP(t *testing.T, w *wallet.T, inv *wallet.Invitation) map[string]any {
	t.Helper()
	h := w.Holder()
	cred, err := h.Issue(context.Background(), wallet.CredentialOptions{Subject: map[string]any{"license": "B"}})
	if err != nil {
		t.Fatal(err)
	}
	vp, err := h.SignedVP(context.Background(), inv, wallet.PresentationOptions{}, wallet.Submitted{DescriptorID: "citizenship", Credential: cred})
	if err != nil {
		t.Fatal(err)
	}
	return vp
}

// A webhook message queued while the receiver is down is delivered after
// a config reload (the pooled deliverer carries on, with the new config's
// endpoints and secret).
func TestWebhookAcrossReload(t *testing.T) {
	rx := webhookrx.Start(t, 2)
	dir := t.TempDir()
	lifecycleConfig(t, rx, dir)
	r := postJSON(t, oobPath(orgA, "indy"), keyA, indyBody)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	id := r.json(t)["data"].(map[string]any)["proofRecordId"].(string)
	lifecycleConfig(t, rx, dir) // a reload: same storage, new handler
	got := rx.WaitFor(t, 60*time.Second, "request-sent")
	n := 0
	for _, d := range got {
		if d.Event.Data.ProofRecordID == id {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d events for the record: %+v", n, got)
	}
}
