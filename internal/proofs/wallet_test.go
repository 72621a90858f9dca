package proofs

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/didcomm"
	"github.com/proofgate/proofgate/internal/didkey"
)

// testWallet is a prover: it reads an invitation, answers with a
// presentation packed by didcomm.Pack, and runs an httptest server, its
// ~service endpoint, that unpacks what the verifier sends back (through
// its own mediator when it has routing keys).
type testWallet struct {
	t        *testing.T
	priv     ed25519.PrivateKey
	verkey   string
	mediator ed25519.PrivateKey // nil: no routing keys
	srv      *httptest.Server
	status   int // what the endpoint answers
	got      chan received
	mu       sync.Mutex
	forwards []didcomm.Forward
}

// received is one message the wallet's endpoint got.
type received struct {
	msg    map[string]any
	sender string
}

func newWallet(t *testing.T, withMediator bool) *testWallet {
	t.Helper()
	_, priv, err := didkey.Generate()
	if err != nil {
		t.Fatal(err)
	}
	w := &testWallet{t: t, priv: priv, verkey: didkey.Verkey(priv.Public().(ed25519.PublicKey)), status: http.StatusAccepted, got: make(chan received, 8)}
	if withMediator {
		_, w.mediator, _ = didkey.Generate()
	}
	w.srv = httptest.NewServer(http.HandlerFunc(w.serve))
	t.Cleanup(w.srv.Close)
	return w
}

func (w *testWallet) serve(rw http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/didcomm-envelope-enc" {
		w.t.Errorf("wallet endpoint: %s with Content-Type %q", r.Method, r.Header.Get("Content-Type"))
		rw.WriteHeader(http.StatusBadRequest)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if w.mediator != nil {
		// The mediator unwraps the forward meant for the wallet.
		un, err := didcomm.Unpack(body, keyFinder(w.mediator))
		if err != nil {
			w.t.Errorf("mediator unpack: %v", err)
			return
		}
		fwd, ok, err := didcomm.ParseForward(un.Message)
		if !ok || err != nil || fwd.To != w.verkey {
			w.t.Errorf("mediator got %s (forward %v, %v)", un.Message, ok, err)
			return
		}
		w.mu.Lock()
		w.forwards = append(w.forwards, fwd)
		w.mu.Unlock()
		body = fwd.Msg
	}
	un, err := didcomm.Unpack(body, keyFinder(w.priv))
	if err != nil {
		w.t.Errorf("wallet unpack: %v", err)
		return
	}
	var m map[string]any
	if err := json.Unmarshal(un.Message, &m); err != nil {
		w.t.Errorf("wallet got %s", un.Message)
	}
	rw.WriteHeader(w.status)
	w.got <- received{msg: m, sender: un.SenderVerkey}
}

func keyFinder(priv ed25519.PrivateKey) func(string) (ed25519.PrivateKey, error) {
	vk := didkey.Verkey(priv.Public().(ed25519.PublicKey))
	return func(kid string) (ed25519.PrivateKey, error) {
		if kid == vk {
			return priv, nil
		}
		return nil, didcomm.ErrUnknownKey
	}
}

// next waits for the next message the wallet's endpoint gets.
func (w *testWallet) next() received {
	w.t.Helper()
	select {
	case r := <-w.got:
		return r
	case <-time.After(10 * time.Second):
		w.t.Fatal("the wallet received nothing")
		return received{}
	}
}

// none checks that the wallet got nothing.
func (w *testWallet) none() {
	w.t.Helper()
	select {
	case r := <-w.got:
		w.t.Fatalf("the wallet received %v", r.msg)
	default:
	}
}

// service is the wallet's ~service decorator, keys spelled as base58
// verkeys, or did:key when didKeys (some agents write those).
func (w *testWallet) service(didKeys bool) map[string]any {
	key := w.verkey
	if didKeys {
		key = didkey.Encode(w.priv.Public().(ed25519.PublicKey))
	}
	routing := []string{}
	if w.mediator != nil {
		routing = append(routing, didkey.Verkey(w.mediator.Public().(ed25519.PublicKey)))
	}
	return map[string]any{"recipientKeys": []string{key}, "routingKeys": routing, "serviceEndpoint": w.srv.URL}
}

// invitation is what the wallet reads from an invitation URL.
type invitation struct {
	decoded
	verifierKey string // base58
	thid, pthid string
	v1          bool
	challenge   string // PE
	domain      string // PE
	defID       string // PE
	proofReq    AnonCredsProofRequest
}

func readInvitation(t *testing.T, longURL string) invitation {
	t.Helper()
	inv := invitation{decoded: decodeURL(t, longURL)}
	svc := inv.inv["services"].([]any)[0].(map[string]any)
	vk, err := didcomm.Verkey(svc["recipientKeys"].([]any)[0].(string))
	if err != nil {
		t.Fatal(err)
	}
	inv.verifierKey = vk
	th := inv.req["~thread"].(map[string]any)
	inv.thid, inv.pthid = th["thid"].(string), th["pthid"].(string)
	inv.v1 = inv.req["@type"] == TypeRequestV1
	if _, isPE := inv.req["formats"].([]any); isPE && inv.req["formats"].([]any)[0].(map[string]any)["format"] == FormatDIFRequest {
		var pe struct {
			Options                DIFOptions `json:"options"`
			PresentationDefinition struct {
				ID string `json:"id"`
			} `json:"presentation_definition"`
		}
		if err := json.Unmarshal(inv.payload, &pe); err != nil {
			t.Fatal(err)
		}
		inv.challenge, inv.domain, inv.defID = pe.Options.Challenge, pe.Options.Domain, pe.PresentationDefinition.ID
	} else if err := json.Unmarshal(inv.payload, &inv.proofReq); err != nil {
		t.Fatal(err)
	}
	return inv
}

// presentation builds the wallet's present-proof presentation message
// with payload as its format attachment, on the invitation's thread.
func (w *testWallet) presentation(inv invitation, payload any, service map[string]any) map[string]any {
	b, err := json.Marshal(payload)
	if err != nil {
		w.t.Fatal(err)
	}
	msg := map[string]any{
		"@id":      uuid.NewString(),
		"~thread":  map[string]any{"thid": inv.thid, "pthid": inv.pthid},
		"comment":  "here you are",
		"~service": service,
	}
	if service == nil {
		delete(msg, "~service")
	}
	if inv.v1 {
		msg["@type"] = "https://didcomm.org/present-proof/1.0/presentation"
		msg["presentations~attach"] = []any{map[string]any{"@id": AttachIDPresentationV1, "mime-type": "application/json", "data": map[string]any{"base64": base64.StdEncoding.EncodeToString(b)}}}
		return msg
	}
	msg["@type"] = "https://didcomm.org/present-proof/2.0/presentation"
	if inv.challenge != "" {
		msg["formats"] = []any{map[string]any{"attach_id": "dif-0", "format": FormatDIFSubmission}}
		msg["presentations~attach"] = []any{map[string]any{"@id": "dif-0", "mime-type": "application/json", "data": map[string]any{"json": json.RawMessage(b)}}}
	} else {
		msg["formats"] = []any{map[string]any{"attach_id": "indy-0", "format": FormatIndyProof}}
		msg["presentations~attach"] = []any{map[string]any{"@id": "indy-0", "mime-type": "application/json", "data": map[string]any{"base64": base64.URLEncoding.EncodeToString(b)}}}
	}
	return msg
}

// pack packs a message to the verifier key, authcrypt or anoncrypt.
func (w *testWallet) pack(inv invitation, msg any, anon bool) []byte {
	w.t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		w.t.Fatal(err)
	}
	sender := w.priv
	if anon {
		sender = nil
	}
	env, err := didcomm.Pack(b, []string{inv.verifierKey}, sender)
	if err != nil {
		w.t.Fatal(err)
	}
	return env
}

// vp is a verifiable presentation answering the PE request of peRequest.
func vp(inv invitation) map[string]any {
	return map[string]any{
		"@context": []any{"https://www.w3.org/2018/credentials/v1"},
		"type":     []any{"VerifiablePresentation"},
		"presentation_submission": map[string]any{
			"id":            uuid.NewString(),
			"definition_id": inv.defID,
			"descriptor_map": []any{
				map[string]any{"id": "wa_driver_license", "format": "ldp_vc", "path": "$.verifiableCredential[0]"},
			},
		},
		"verifiableCredential": []any{map[string]any{
			"@context":          []any{"https://www.w3.org/2018/credentials/v1"},
			"type":              []any{"VerifiableCredential"},
			"issuer":            "did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH",
			"credentialSubject": map[string]any{"id": "did:example:holder", "dateOfBirth": "1990-01-01"},
			"proof":             map[string]any{"type": "Ed25519Signature2018", "proofPurpose": "assertionMethod"},
		}},
		"proof": map[string]any{
			"type":         "Ed25519Signature2018",
			"proofPurpose": "authentication",
			"challenge":    inv.challenge,
			"domain":       inv.domain,
			"jws":          "eyJhbGciOiJFZERTQSJ9..c2ln",
		},
	}
}

// indyProof is an AnonCreds proof answering indyRequest.
func indyProof() map[string]any {
	return map[string]any{
		"proof": map[string]any{"proofs": []any{map[string]any{}}, "aggregated_proof": map[string]any{}},
		"requested_proof": map[string]any{
			"revealed_attrs":      map[string]any{"attr1": map[string]any{"sub_proof_index": 0, "raw": "Alice", "encoded": "27034640024117331033063128044004318218486816931520886405535659934417438781507"}},
			"self_attested_attrs": map[string]any{},
			"unrevealed_attrs":    map[string]any{},
			"predicates":          map[string]any{"pred1": map[string]any{"sub_proof_index": 0}},
		},
		"identifiers": []any{map[string]any{
			"schema_id":   "L5u3AaDjGhV2AjL6mwAjLm:2:employee:1.0",
			"cred_def_id": "L5u3AaDjGhV2AjL6mwAjLm:3:CL:12:default",
			"rev_reg_id":  nil,
			"timestamp":   nil,
		}},
	}
}

// newTestAgent is an agent that may send to the loopback wallets.
func newTestAgent(t *testing.T) *Agent {
	t.Helper()
	a := NewAgent(newTestService(t, fileStorage(t)), AgentConfig{AllowPrivateEndpoints: true, SendTimeout: 5 * time.Second})
	t.Cleanup(a.Close)
	return a
}
