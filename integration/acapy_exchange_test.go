package integration

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	acapyenv "github.com/proofgate/proofgate/internal/testenv/acapy"
)

// ldAgents are the ACA-Py agents of this binary's real-peer tests, shared
// (each starts once): an issuer, and a holder with a did:key JSON-LD
// credential from it.
func ldHolder(t *testing.T) acapyenv.LDHolder {
	t.Helper()
	issuer := acapyenv.Shared(t, acapyenv.ExtraArgs(acapyenv.IssuerArgs...))
	holder := acapyenv.Shared(t, acapyenv.ExtraArgs(acapyenv.HolderArgs...))
	return acapyenv.IssueTestCredential(t, issuer, holder, map[string]any{"givenName": "Alice", "birthDate": "1990-01-01"})
}

// TestRealACAPyFullExchange is the upstream acapy mode end to end with
// real agents: proofgate asks an ACA-Py verifier for a presentation-exchange
// request, an ACA-Py holder answers the invitation proofgate returned with
// a W3C credential a second ACA-Py issued it, and accept-presentation
// through proofgate ends done and verified at the verifier, with the
// holder's record done too (it got the verifier's ack).
func TestRealACAPyFullExchange(t *testing.T) {
	verifier := acapyenv.Shared(t)
	h := ldHolder(t)
	t.Logf("started: verifier %s, issuer %s, holder %s (ACA-Py %s)", verifier.AdminURL, h.Issuer.AdminURL, h.Holder.AdminURL, verifier.Version)

	tester := newTester(t)
	tester.InitServer(globalOptions(t.TempDir())+`
`+base+` {
	proofgate {
		backend aca acapy `+verifier.AdminURL+` {
			api_key `+verifier.APIKey+`
		}
		org `+orgA+` aca
		auth {
			api_key `+keyA+` org `+orgA+`
		}
	}
}
`, "caddyfile")
	settle(t)

	const descriptor = "test_credential"
	body := `{"isShortenUrl":false,"comment":"show your test credential","proofFormats":{},
		"presentationDefinition":{"input_descriptors":[{"id":"` + descriptor + `","name":"Test credential","purpose":"proofgate's real-peer test",
		"schema":[{"uri":"` + acapyenv.CredentialsV1Schema + `"}],
		"constraints":{"fields":[{"path":["$.credentialSubject.givenName"]}]}}]}}`
	r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, body)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	data := r.json(t)["data"].(map[string]any)
	id, thid := data["proofRecordId"].(string), data["proofRecordThId"].(string)

	// Nothing presented yet: 409 naming the state.
	if a := postJSON(t, acceptPath(id), keyA, ""); a.status != http.StatusConflict || !strings.Contains(string(a.body), "request-sent") {
		t.Fatalf("accept before the presentation: %d %s", a.status, a.body)
	}

	// The holder takes the invitation proofgate handed out.
	inv, err := json.Marshal(data["invitation"])
	if err != nil {
		t.Fatal(err)
	}
	h.Holder.ReceiveInvitation(t, inv)
	req := h.Holder.WaitPresEx(t, thid, time.Minute, "request-received")
	h.Holder.SendPresentation(t, req.PresExID, map[string]any{"dif": map[string]any{
		"record_ids": map[string]any{descriptor: []string{h.Credential.RecordID}},
	}})
	verifier.WaitPresEx(t, thid, time.Minute, "presentation-received")

	a := postJSON(t, acceptPath(id), keyA, "")
	if a.status != http.StatusOK {
		t.Fatalf("accept: %d %s\nverifier output:\n%s", a.status, a.body, verifier.Logs())
	}
	rec := a.json(t)
	if rec["state"] != "done" || rec["isVerified"] != true || rec["id"] != id || rec["threadId"] != thid {
		t.Fatalf("accepted record %s", a.body)
	}
	if got := verifier.WaitPresEx(t, thid, 10*time.Second, "done"); got.Verified != "true" {
		t.Errorf("verifier's record %+v, want done and verified", got)
	}
	h.Holder.WaitPresEx(t, thid, 30*time.Second, "done")

	// Accepted once: a second accept is a conflict in done.
	if a := postJSON(t, acceptPath(id), keyA, ""); a.status != http.StatusConflict || !strings.Contains(string(a.body), "done") {
		t.Fatalf("second accept: %d %s", a.status, a.body)
	}
}
