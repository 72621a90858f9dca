package integration

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/didcomm"
	"github.com/proofgate/proofgate/internal/didkey"
)

// wallet is a prover on loopback: it reads an invitation, answers with a
// presentation over DIDComm (RFC 0019 authcrypt), and receives the ack.
type wallet struct {
	t      *testing.T
	priv   ed25519.PrivateKey
	verkey string
	srv    *httptest.Server
	got    chan []byte // plaintext messages received
}

func newWallet(t *testing.T) *wallet {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	w := &wallet{t: t, priv: priv, verkey: didkey.Verkey(priv.Public().(ed25519.PublicKey)), got: make(chan []byte, 10)}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		env, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		u, err := didcomm.Unpack(env, func(kid string) (ed25519.PrivateKey, error) { return w.priv, nil })
		if err != nil {
			t.Errorf("wallet could not unpack: %v", err)
			rw.WriteHeader(400)
			return
		}
		rw.WriteHeader(http.StatusAccepted)
		w.got <- u.Message
	}))
	t.Cleanup(w.srv.Close)
	return w
}

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
	inv := invitationFromURL(t, data["invitationUrl"].(string))
	svc := inv["services"].([]any)[0].(map[string]any)
	if svc["serviceEndpoint"] != base+"/didcomm" {
		t.Fatalf("service %v", svc)
	}
	verifierKey, err := didcomm.Verkey(svc["recipientKeys"].([]any)[0].(string))
	if err != nil {
		t.Fatal(err)
	}
	req := attachedRequest(t, inv)
	thread := req["~thread"].(map[string]any)
	pe := formatAttachment(t, req)
	challenge, domain := pe["options"].(map[string]any)["challenge"], pe["options"].(map[string]any)["domain"]
	defID := pe["presentation_definition"].(map[string]any)["id"]

	w := newWallet(t)
	presentation := map[string]any{
		"@context": []any{"https://www.w3.org/2018/credentials/v1"},
		"type":     []any{"VerifiablePresentation"},
		"presentation_submission": map[string]any{
			"id": uuid.NewString(), "definition_id": defID,
			"descriptor_map": []any{map[string]any{"id": "citizenship", "format": "ldp_vc", "path": "$.verifiableCredential[0]"}},
		},
		"verifiableCredential": []any{map[string]any{
			"@context":          []any{"https://www.w3.org/2018/credentials/v1"},
			"type":              []any{"VerifiableCredential"},
			"issuer":            "did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH",
			"credentialSubject": map[string]any{"id": "did:example:holder", "license": "B"},
			"proof":             map[string]any{"type": "Ed25519Signature2018", "proofPurpose": "assertionMethod"},
		}},
		"proof": map[string]any{"type": "Ed25519Signature2018", "proofPurpose": "authentication", "challenge": challenge, "domain": domain, "jws": "eyJhbGciOiJFZERTQSJ9..c2ln"},
	}
	msg := map[string]any{
		"@type":                "https://didcomm.org/present-proof/2.0/presentation",
		"@id":                  uuid.NewString(),
		"~thread":              map[string]any{"thid": thread["thid"], "pthid": thread["pthid"]},
		"~service":             map[string]any{"recipientKeys": []string{w.verkey}, "routingKeys": []string{}, "serviceEndpoint": w.srv.URL},
		"formats":              []any{map[string]any{"attach_id": "dif-0", "format": "dif/presentation-exchange/submission@v1.0"}},
		"presentations~attach": []any{map[string]any{"@id": "dif-0", "mime-type": "application/json", "data": map[string]any{"json": presentation}}},
	}
	plain, _ := json.Marshal(msg)
	env, err := didcomm.Pack(plain, []string{verifierKey}, w.priv)
	if err != nil {
		t.Fatal(err)
	}

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
	var ack map[string]any
	if err := json.Unmarshal(<-w.got, &ack); err != nil {
		t.Fatal(err)
	}
	if ack["@type"] != "https://didcomm.org/present-proof/2.0/ack" || ack["status"] != "OK" ||
		ack["~thread"].(map[string]any)["thid"] != thread["thid"] {
		t.Fatalf("ack %v", ack)
	}

	// A presentation that does not answer the request (wrong challenge):
	// the record is abandoned and the wallet told so.
	r = postJSON(t, oobPath(orgA, "presentationExchange"), keyA, strings.Replace(peBody, `"isShortenUrl":true`, `"isShortenUrl":false`, 1))
	data = r.json(t)["data"].(map[string]any)
	inv = invitationFromURL(t, data["invitationUrl"].(string))
	req = attachedRequest(t, inv)
	thread = req["~thread"].(map[string]any)
	pe = formatAttachment(t, req)
	presentation["presentation_submission"].(map[string]any)["definition_id"] = pe["presentation_definition"].(map[string]any)["id"]
	presentation["proof"].(map[string]any)["domain"] = pe["options"].(map[string]any)["domain"]
	presentation["proof"].(map[string]any)["challenge"] = uuid.NewString()
	msg["~thread"] = map[string]any{"thid": thread["thid"], "pthid": thread["pthid"]}
	msg["@id"] = uuid.NewString()
	plain, _ = json.Marshal(msg)
	if env, err = didcomm.Pack(plain, []string{verifierKey}, w.priv); err != nil {
		t.Fatal(err)
	}
	if d := do(t, http.MethodPost, "/didcomm", string(env), "Content-Type: application/didcomm-envelope-enc"); d.status != http.StatusAccepted {
		t.Fatalf("presentation: %d %s", d.status, d.body)
	}
	var report map[string]any
	if err := json.Unmarshal(<-w.got, &report); err != nil {
		t.Fatal(err)
	}
	if report["@type"] != "https://didcomm.org/present-proof/2.0/problem-report" ||
		!strings.Contains(report["description"].(map[string]any)["en"].(string), "challenge") {
		t.Fatalf("problem report %v", report)
	}
	wantBody(t, postJSON(t, acceptPath(data["proofRecordId"].(string)), keyA, ""), http.StatusConflict,
		`{"statusCode":409,"error":"Conflict","message":"proof record is in state \"abandoned\"; a presentation can be accepted only in state \"presentation-received\""}`)
}
