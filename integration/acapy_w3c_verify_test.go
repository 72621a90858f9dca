package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	acapyenv "github.com/proofgate/proofgate/internal/testenv/acapy"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// TestLocalVerifierVerifiesACAPyCredential is issue #9's real-wallet run:
// an ACA-Py issuer issues a did:key Ed25519Signature2018 credential to an
// ACA-Py holder over DIDComm on loopback; the holder answers the local
// backend's presentation-exchange invitation; proofgate verifies the
// presentation cryptographically (no domain in ACA-Py's proof, accepted),
// the record reaches presentation-received with isVerified true, accept
// gives done and the holder gets the ack. The same credential tampered,
// or presented by someone else, is refused.
func TestLocalVerifierVerifiesACAPyCredential(t *testing.T) {
	h := ldHolder(t)
	t.Logf("started: issuer %s, holder %s (ACA-Py %s)", h.Issuer.AdminURL, h.Holder.AdminURL, h.Holder.Version)

	storage := t.TempDir()
	tester := newTester(t)
	tester.InitServer(globalOptions(storage)+`
`+base+` {
	proofgate {
		backend local local {
			public_url `+base+`
			allow_private_endpoints
			trusted_issuers `+h.IssuerDID+`
		}
		auth {
			api_key `+keyA+` org `+orgA+`
		}
	}
}
`, "caddyfile")
	settle(t)
	unloadAtEnd(t)

	const descriptor = "test_credential"
	// The definition names its formats as ACA-Py's own verifier asks them
	// (ldp_vp with a proof type): ACA-Py as the holder answers in them,
	// and the local verifier holds the answer to them.
	body := `{"isShortenUrl":false,"comment":"show your test credential","proofFormats":{},
		"presentationDefinition":{"format":{"ldp_vp":{"proof_type":["Ed25519Signature2018"]},"ldp_vc":{"proof_type":["Ed25519Signature2018"]}},
		"input_descriptors":[{"id":"` + descriptor + `","name":"Test credential",
		"schema":[{"uri":"` + acapyenv.CredentialsV1Schema + `"}],
		"constraints":{"fields":[{"path":["$.credentialSubject.givenName"]}]}}]}}`
	r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, body)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	data := r.json(t)["data"].(map[string]any)
	id, thid := data["proofRecordId"].(string), data["proofRecordThId"].(string)
	inv, err := json.Marshal(data["invitation"])
	if err != nil {
		t.Fatal(err)
	}
	h.Holder.ReceiveInvitation(t, inv)
	req := h.Holder.WaitPresEx(t, thid, time.Minute, "request-received")
	h.Holder.SendPresentation(t, req.PresExID, map[string]any{"dif": map[string]any{
		"record_ids": map[string]any{descriptor: []string{h.Credential.RecordID}},
	}})

	rec := waitRecord(t, storage, id, time.Minute)
	if rec["state"] != "presentation-received" || rec["isVerified"] != true {
		raw, _ := json.Marshal(rec)
		t.Fatalf("record after ACA-Py's presentation: %s\nholder output:\n%s", raw, h.Holder.Logs())
	}
	meta, _ := json.Marshal(rec["metadata"])
	if !strings.Contains(string(meta), `"verified":true`) || !strings.Contains(string(meta), h.IssuerDID) {
		t.Fatalf("metadata.verification: %s", meta)
	}
	a := postJSON(t, acceptPath(id), keyA, "")
	if a.status != http.StatusOK {
		t.Fatalf("accept: %d %s", a.status, a.body)
	}
	if got := a.json(t); got["state"] != "done" || got["isVerified"] != true {
		t.Fatalf("accepted record %s", a.body)
	}
	h.Holder.WaitPresEx(t, thid, 30*time.Second, "done")

	// Asked for a presentation proof type ACA-Py does not sign with
	// (Ed25519Signature2020), ACA-Py 1.4 still signs Ed25519Signature2018:
	// the local verifier holds the answer to the definition's format.
	strict := strings.Replace(body, `"ldp_vp":{"proof_type":["Ed25519Signature2018"]}`, `"ldp_vp":{"proof_type":["Ed25519Signature2020"]}`, 1)
	r = postJSON(t, oobPath(orgA, "presentationExchange"), keyA, strict)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	data = r.json(t)["data"].(map[string]any)
	id, thid = data["proofRecordId"].(string), data["proofRecordThId"].(string)
	if inv, err = json.Marshal(data["invitation"]); err != nil {
		t.Fatal(err)
	}
	h.Holder.ReceiveInvitation(t, inv)
	req = h.Holder.WaitPresEx(t, thid, time.Minute, "request-received")
	h.Holder.SendPresentation(t, req.PresExID, map[string]any{"dif": map[string]any{
		"record_ids": map[string]any{descriptor: []string{h.Credential.RecordID}},
	}})
	rec = waitRecord(t, storage, id, time.Minute)
	if raw, _ := json.Marshal(rec); rec["state"] != "abandoned" || !strings.Contains(string(raw), "Ed25519Signature2020") {
		t.Fatalf("record after ACA-Py's off-format presentation: %s", raw)
	}

	// The same ACA-Py-signed credential, presented by the project's test
	// wallet: with one claim changed after signing the issuer's signature
	// fails; unchanged, the wallet is not its subject (holder binding).
	w := wallet.NewT(t, wallet.Options{})
	for _, tc := range []struct {
		name, reason string
		cred         map[string]any
	}{
		{"tampered", "signature", wallet.Tamper(h.Credential.Credential, "givenName", "Mallory")},
		{"someone else's", "holder-binding", h.Credential.Credential},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, body)
			if r.status != http.StatusCreated {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
			data := r.json(t)["data"].(map[string]any)
			id := data["proofRecordId"].(string)
			inv := w.ReadInvitation(data["invitationUrl"].(string))
			vp, err := w.Holder().SignedVP(context.Background(), inv, wallet.PresentationOptions{}, wallet.Submitted{DescriptorID: descriptor, Credential: tc.cred})
			if err != nil {
				t.Fatal(err)
			}
			if d := do(t, http.MethodPost, "/didcomm", string(w.Present(inv, vp, false)), "Content-Type: application/didcomm-envelope-enc"); d.status != http.StatusAccepted {
				t.Fatalf("presentation: %d %s", d.status, d.body)
			}
			rec := waitRecord(t, storage, id, 30*time.Second)
			v, _ := rec["metadata"].(map[string]any)["verification"].(map[string]any)
			if rec["state"] != "abandoned" || rec["isVerified"] != false || v["reason"] != tc.reason {
				raw, _ := json.Marshal(rec)
				t.Fatalf("record %s, want abandoned with reason %s", raw, tc.reason)
			}
		})
	}
}
