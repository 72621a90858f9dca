package integration

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/testenv/wallet"
	"github.com/proofgate/proofgate/internal/testenv/webhookrx"
)

// reloadConfig is a local verifier with a webhook to hook and e-mail to
// sink. The refused variant has a default_backend that names no backend:
// Validate catches it after Provision, so Caddy provisions that config
// (attaching it to the pooled webhook, e-mail and ack deliverers) and then
// refuses it. It also keeps acks off private addresses, where the test's
// wallet is.
func reloadConfig(dir, hook string, sink *smtpSink, refused bool) string {
	extra, private := "", "allow_private_endpoints"
	if refused {
		extra, private = "default_backend nope", ""
	}
	return globalOptions(dir) + `
` + base + ` {
	proofgate {
		backend local local {
			public_url ` + base + `
			` + private + `
		}
		` + extra + `
		auth {
			api_key ` + keyA + ` org ` + orgA + `
		}
		webhook ` + hook + ` {
			secret {env.PG_TEST_WEBHOOK_SECRET}
			allow_private
		}
		` + emailBlock(sink) + `
	}
}
`
}

// A config push that Caddy refuses leaves the old config running, and the
// old config's deliveries with it: its webhook goes to its endpoint (the
// refused config named another), its mail's outcome reaches the record,
// and its ack is sent. Before, the refused config's webhook, mail-outcome
// and ack functions stayed in charge of the shared deliverers.
func TestRefusedReloadKeepsTheRunningConfigsDeliveries(t *testing.T) {
	t.Setenv("PG_TEST_WEBHOOK_SECRET", webhookrx.Secret)
	rx := webhookrx.Start(t, 0)
	other := webhookrx.Start(t, 0)
	sink := startSMTP(t)
	dir := t.TempDir()
	newTester(t).InitServer(reloadConfig(dir, rx.URL, sink, false), "caddyfile")
	settle(t)
	unloadAtEnd(t)

	assertLoadError(t, reloadConfig(dir, other.URL, sink, true), "caddyfile", "default_backend")
	settle(t)

	body := strings.Replace(peBody, `"isShortenUrl":true`, `"isShortenUrl":false,"emailId":["alice@example.com"]`, 1)
	r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, body)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	recip := r.json(t)["data"].(map[string]any)["recipients"].([]any)[0].(map[string]any)
	id := recip["proofRecordId"].(string)

	rx.WaitFor(t, 30*time.Second, "request-sent")
	sink.wait(t, "alice@example.com")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		rec := getRecord(t, id, keyA).json(t)
		md, _ := rec["metadata"].(map[string]any)
		if e, ok := md["email"].(map[string]any); ok && e["state"] == "sent" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the mail's outcome did not reach the record: %v", rec["metadata"])
		}
	}

	w := wallet.NewT(t, wallet.Options{})
	present(t, w, recip["invitationUrl"].(string))
	a := postJSON(t, acceptPath(id), keyA, "")
	if a.status != http.StatusOK {
		t.Fatalf("accept: %d %s", a.status, a.body)
	}
	if ack := a.json(t)["metadata"].(map[string]any)["ack"].(map[string]any); ack["sent"] != true {
		t.Fatalf("ack %v", ack)
	}
	if ack := w.Next(); ack.Type() != "https://didcomm.org/present-proof/2.0/ack" {
		t.Fatalf("ack %s", ack.Raw)
	}
	if n := len(other.Deliveries()); n != 0 {
		t.Fatalf("the refused config's endpoint got %d deliveries", n)
	}
}
