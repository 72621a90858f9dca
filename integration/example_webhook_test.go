package integration

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/testenv/wallet"
	"github.com/proofgate/proofgate/internal/testenv/webhookrx"
)

// The built binary on examples/Caddyfile with its webhook switched on by
// the environment: a full exchange reaches a receiver that is down for
// its first attempts, every transition signed and exactly once per
// webhook-id; GET /proofs/{id} shows each state; autoAcceptProof always
// completes without accept.
func TestExampleWebhooks(t *testing.T) {
	rx := webhookrx.Start(t, 3)
	s := runExample(t, freePort(t), "PROOFGATE_DATA="+t.TempDir(),
		"PROOFGATE_WEBHOOK_URL="+rx.URL, "PROOFGATE_WEBHOOK_SECRET="+webhookrx.Secret, "PROOFGATE_WEBHOOK_ALLOW_PRIVATE=true")
	get := func(id string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.url+"/proofs/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+demoKey)
		resp, err := noKeepAlive.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return response{status: resp.StatusCode, body: b}.json(t)
	}
	presentTo := func(invitationURL string) {
		t.Helper()
		w := wallet.NewT(t, wallet.Options{})
		inv := w.ReadInvitation(invitationURL)
		env := w.Present(inv, signedVP(t, w, inv), false)
		resp, err := noKeepAlive.Post(s.url+"/didcomm", "application/didcomm-envelope-enc", strings.NewReader(string(env)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("presentation: %d", resp.StatusCode)
		}
	}
	create := func(extra string) (string, string) {
		t.Helper()
		body := strings.Replace(peBody, `"isShortenUrl":true`, `"isShortenUrl":false`+extra, 1)
		status, out := s.post(oobPath(demoOrg, "presentationExchange"), demoKey, body)
		if status != http.StatusCreated {
			t.Fatalf("create: %d %s\n%s", status, out, s.logs)
		}
		return between(out, `"proofRecordId":"`, `"`), between(out, `"invitationUrl":"`, `"`)
	}

	id, invURL := create("")
	if rec := get(id); rec["state"] != "request-sent" {
		t.Fatalf("GET %v", rec)
	}
	presentTo(invURL)
	if rec := get(id); rec["state"] != "presentation-received" || rec["connectionId"] == nil {
		t.Fatalf("GET %v", rec)
	}
	if status, body := s.post(acceptPath(id), demoKey, ""); status != http.StatusOK {
		t.Fatalf("accept: %d %s", status, body)
	}
	if rec := get(id); rec["state"] != "done" {
		t.Fatalf("GET %v", rec)
	}

	auto, autoURL := create(`,"autoAcceptProof":"always"`)
	presentTo(autoURL)
	if rec := get(auto); rec["state"] != "done" {
		t.Fatalf("autoAcceptProof always: %v", rec)
	}

	deadline := time.Now().Add(90 * time.Second)
	for {
		count := map[string]int{}
		for _, d := range webhookrx.Unique(rx.Deliveries()) {
			count[d.Event.Data.ProofRecordID+" "+d.Event.Data.State]++
		}
		want := []string{id + " request-sent", id + " presentation-received", id + " done",
			auto + " request-sent", auto + " presentation-received", auto + " done"}
		ok := len(count) == len(want)
		for _, k := range want {
			ok = ok && count[k] == 1
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook events %v, want one each of %v\n%s", count, want, s.logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
