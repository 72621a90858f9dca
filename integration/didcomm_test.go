package integration

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

func TestDIDCommPresentationAndAck(t *testing.T) {
	tester := newTester(t)
	tester.InitServer(globalOptions(t.TempDir())+`
`+base+` {
	proofgate {
		backend local local {
			public_url `+base+`
			allow_private_endpoints
		}
		auth {
			api_key `+keyA+` org `+orgA+`
		}
	}
}
`, "caddyfile")
	settle(t)
	unloadAtEnd(t)

	r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, strings.Replace(peBody, `"isShortenUrl":true`, `"isShortenUrl":false`, 1))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	data := r.json(t)["data"].(map[string]any)
	w := wallet.NewT(t, wallet.Options{})
	inv := w.ReadInvitation(data["invitationUrl"].(string))
	if inv.Endpoint != base+"/didcomm" {
		t.Fatalf("service endpoint %q", inv.Endpoint)
	}
	citizenship := func(inv *wallet.Invitation) map[string]any {
		return wallet.UnsignedVP(inv, wallet.Submitted{
			DescriptorID: "citizenship",
			Credential:   wallet.UnsignedCredential(map[string]any{"id": "did:example:holder", "license": "B"}),
		})
	}
	env := w.Present(inv, citizenship(inv), false)

	// Not for us, or not an envelope: one uniform 400.
	wantBody(t, do(t, http.MethodPost, "/didcomm", `{"protected":"x"}`, "Content-Type: application/didcomm-envelope-enc"), http.StatusBadRequest, "")
	wantBody(t, do(t, http.MethodGet, "/didcomm", ""), http.StatusMethodNotAllowed, "")

	if d := do(t, http.MethodPost, "/didcomm", string(env), "Content-Type: application/didcomm-envelope-enc"); d.status != http.StatusAccepted {
		t.Fatalf("presentation: %d %s", d.status, d.body)
	}
	id := data["proofRecordId"].(string)
	a := postJSON(t, acceptPath(id), keyA, "")
	if a.status != http.StatusOK {
		t.Fatalf("accept: %d %s", a.status, a.body)
	}
	rec := a.json(t)
	check, _ := rec["metadata"].(map[string]any)["verification"].(map[string]any)
	if rec["state"] != "done" || rec["isVerified"] != nil || check["answersRequest"] != true || check["signaturesVerified"] != false {
		t.Fatalf("record %s", a.body)
	}
	ack := w.Next()
	if ack.Type() != "https://didcomm.org/present-proof/2.0/ack" || ack.Message["status"] != "OK" || ack.ThreadID() != inv.ThreadID {
		t.Fatalf("ack %s", ack.Raw)
	}

	// A presentation that does not answer the request (wrong challenge):
	// the record is abandoned and the wallet told so.
	r = postJSON(t, oobPath(orgA, "presentationExchange"), keyA, strings.Replace(peBody, `"isShortenUrl":true`, `"isShortenUrl":false`, 1))
	data = r.json(t)["data"].(map[string]any)
	inv = w.ReadInvitation(data["invitationUrl"].(string))
	wrong := citizenship(inv)
	wrong["proof"].(map[string]any)["challenge"] = uuid.NewString()
	env = w.Present(inv, wrong, false)
	if d := do(t, http.MethodPost, "/didcomm", string(env), "Content-Type: application/didcomm-envelope-enc"); d.status != http.StatusAccepted {
		t.Fatalf("presentation: %d %s", d.status, d.body)
	}
	report := w.Next()
	if report.Type() != "https://didcomm.org/present-proof/2.0/problem-report" ||
		!strings.Contains(report.Message["description"].(map[string]any)["en"].(string), "challenge") {
		t.Fatalf("problem report %s", report.Raw)
	}
	wantBody(t, postJSON(t, acceptPath(data["proofRecordId"].(string)), keyA, ""), http.StatusConflict,
		`{"statusCode":409,"error":"Conflict","message":"proof record is in state \"abandoned\"; a presentation can be accepted only in state \"presentation-received\""}`)
}
