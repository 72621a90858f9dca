package wallet

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/didcomm"
	"github.com/proofgate/proofgate/internal/didkey"
)

// invitationURL builds an invitation the way a verifier would, by hand.
func invitationURL(t *testing.T, verifierDID string, request map[string]any, base64Attach bool) (string, []byte) {
	t.Helper()
	reqJSON, _ := json.Marshal(request)
	data := map[string]any{"json": request}
	if base64Attach {
		data = map[string]any{"base64": base64.StdEncoding.EncodeToString(reqJSON)}
	}
	inv := map[string]any{
		"@type":           "https://didcomm.org/out-of-band/1.1/invitation",
		"@id":             "inv-1",
		"requests~attach": []any{map[string]any{"@id": "request-0", "mime-type": "application/json", "data": data}},
		"services":        []any{map[string]any{"id": "#inline", "type": "did-communication", "recipientKeys": []string{verifierDID}, "serviceEndpoint": "https://v.example/didcomm"}},
	}
	raw, _ := json.Marshal(inv)
	return "https://v.example/?oob=" + base64.RawURLEncoding.EncodeToString(raw), raw
}

func difRequest() map[string]any {
	return map[string]any{
		"@type":   TypeRequestV2,
		"@id":     "req-1",
		"~thread": map[string]any{"thid": "th-1", "pthid": "inv-1"},
		"formats": []any{map[string]any{"attach_id": "dif", "format": FormatDIFRequest}},
		"request_presentations~attach": []any{map[string]any{"@id": "dif", "mime-type": "application/json", "data": map[string]any{"json": map[string]any{
			"options": map[string]any{"challenge": "c-1", "domain": "v.example"},
			"presentation_definition": map[string]any{"id": "def-1", "input_descriptors": []any{map[string]any{
				"id": "lic", "constraints": map[string]any{"fields": []any{
					map[string]any{"path": []string{"$.credentialSubject.licenseClass"}, "filter": map[string]any{"type": "string", "const": "B"}},
					map[string]any{"path": []string{"$.credentialSubject.name"}},
				}},
			}}},
		}}}},
	}
}

func v1Request() map[string]any {
	pr, _ := json.Marshal(map[string]any{"name": "p", "version": "1.0", "nonce": "123",
		"requested_attributes": map[string]any{"a1": map[string]any{"name": "name", "restrictions": []any{map[string]any{"cred_def_id": "X:3:CL:1:t"}}}, "g1": map[string]any{"names": []string{"x", "y"}}},
		"requested_predicates": map[string]any{"p1": map[string]any{"name": "age", "p_type": ">=", "p_value": 18}}})
	return map[string]any{
		"@type":                        "did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/present-proof/1.0/request-presentation",
		"@id":                          "req-2",
		"request_presentations~attach": []any{map[string]any{"@id": "libindy-request-presentation-0", "mime-type": "application/json", "data": map[string]any{"base64": base64.StdEncoding.EncodeToString(pr)}}},
	}
}

func verifierKey(t *testing.T) (ed25519.PrivateKey, string) {
	t.Helper()
	pub, priv, err := didkey.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return priv, didkey.Encode(pub)
}

func TestParseInvitation(t *testing.T) {
	vpriv, vdid := verifierKey(t)
	vk := didkey.Verkey(vpriv.Public().(ed25519.PublicKey))

	u, _ := invitationURL(t, vdid, difRequest(), false)
	inv, err := ParseInvitation(u)
	if err != nil {
		t.Fatal(err)
	}
	if inv.VerifierKey != vk || inv.Endpoint != "https://v.example/didcomm" || inv.ThreadID != "th-1" || inv.ParentThreadID != "inv-1" ||
		inv.V1 || !inv.IsDIF() || inv.Challenge != "c-1" || inv.Domain != "v.example" || inv.DefinitionID != "def-1" || inv.ID != "inv-1" {
		t.Fatalf("DIF invitation: %+v", inv)
	}

	u, _ = invitationURL(t, vk, v1Request(), true)
	inv, err = ParseInvitation(u)
	if err != nil {
		t.Fatal(err)
	}
	if !inv.V1 || inv.IsDIF() || inv.ThreadID != "req-2" || inv.ProofRequest.Nonce != "123" || inv.ProofRequest.RequestedPredicates["p1"].PValue != 18 {
		t.Fatalf("v1 invitation: %+v", inv)
	}

	for name, bad := range map[string]string{
		"no parameter":   "https://v.example/",
		"not base64":     "https://v.example/?oob=%%%",
		"not JSON":       "https://v.example/?oob=" + base64.RawURLEncoding.EncodeToString([]byte("nope")),
		"no services":    "https://v.example/?oob=" + base64.RawURLEncoding.EncodeToString([]byte(`{"requests~attach":[]}`)),
		"not a request":  "https://v.example/?oob=" + base64.RawURLEncoding.EncodeToString([]byte(`{"services":[{"recipientKeys":["`+vk+`"]}],"requests~attach":[{"data":{"json":{"@type":"x"}}}]}`)),
		"no attachments": "https://v.example/?oob=" + base64.RawURLEncoding.EncodeToString([]byte(`{"services":[{"recipientKeys":["`+vk+`"]}]}`)),
	} {
		if _, err := ParseInvitation(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestResolveShortURL: a short URL is fetched with Accept: application/json.
func TestResolveShortURL(t *testing.T) {
	_, vdid := verifierKey(t)
	long, raw := invitationURL(t, vdid, difRequest(), false)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/url/json" && r.Header.Get("Accept") == "application/json":
			_, _ = w.Write(raw)
		case r.URL.Path == "/url/redirect":
			http.Redirect(w, r, "/?oob="+strings.SplitN(long, "oob=", 2)[1], http.StatusFound)
		case r.URL.Path == "/":
			w.WriteHeader(http.StatusOK)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	for _, p := range []string{"/url/json", "/url/redirect"} {
		inv, err := ResolveInvitation(context.Background(), srv.Client(), srv.URL+p)
		if err != nil || inv.DefinitionID != "def-1" {
			t.Fatalf("%s: %+v, %v", p, inv, err)
		}
	}
	if _, err := ResolveInvitation(context.Background(), srv.Client(), srv.URL+"/url/gone"); err == nil {
		t.Fatal("404 accepted")
	}
}

// TestRoundTrip: a presentation packed by the wallet opens with the
// verifier's key and reads as the protocol says; what the verifier sends
// back to the wallet's ~service (through the mediator) arrives unpacked.
func TestRoundTrip(t *testing.T) {
	vpriv, vdid := verifierKey(t)
	vk := didkey.Verkey(vpriv.Public().(ed25519.PublicKey))
	for _, tt := range []struct {
		name           string
		mediator, anon bool
		didKeys        bool
	}{
		{"authcrypt", false, false, false},
		{"anoncrypt via mediator", true, true, false},
		{"did:key service via mediator", true, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := NewT(t, Options{Mediator: tt.mediator})
			u, _ := invitationURL(t, vdid, difRequest(), false)
			inv := w.ReadInvitation(u)
			payload, err := AutoPresentation(inv, map[string]any{"name": "Alice"})
			if err != nil {
				t.Fatal(err)
			}
			svc := w.Service(tt.didKeys)
			env := w.Pack(inv, w.Presentation(inv, payload, PresentOptions{Service: svc}), tt.anon)
			un, err := didcomm.Unpack(env, keyFinder(vpriv))
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]string{true: "", false: w.Verkey()}[tt.anon]; un.SenderVerkey != want || un.RecipientVerkey != vk {
				t.Fatalf("sender %q recipient %q", un.SenderVerkey, un.RecipientVerkey)
			}
			var msg struct {
				Type    string            `json:"@type"`
				Thread  map[string]string `json:"~thread"`
				Formats []map[string]string
				Attach  []struct {
					ID   string `json:"@id"`
					Data struct {
						JSON map[string]any `json:"json"`
					} `json:"data"`
				} `json:"presentations~attach"`
				Service map[string]any `json:"~service"`
			}
			if err := json.Unmarshal(un.Message, &msg); err != nil {
				t.Fatal(err)
			}
			vp := msg.Attach[0].Data.JSON
			cs := vp["verifiableCredential"].([]any)[0].(map[string]any)["credentialSubject"].(map[string]any)
			if msg.Type != TypePresentationV2 || msg.Thread["thid"] != "th-1" || msg.Thread["pthid"] != "inv-1" ||
				msg.Formats[0]["format"] != FormatDIFSubmission || msg.Formats[0]["attach_id"] != msg.Attach[0].ID ||
				cs["licenseClass"] != "B" || cs["name"] != "Alice" || vp["proof"].(map[string]any)["challenge"] != "c-1" {
				t.Fatalf("presentation %s", un.Message)
			}

			// The verifier answers to the ~service it got.
			var keys, routing []string
			for _, k := range svc["recipientKeys"].([]string) {
				v, _ := didcomm.Verkey(k)
				keys = append(keys, v)
			}
			for _, k := range svc["routingKeys"].([]string) {
				v, _ := didcomm.Verkey(k)
				routing = append(routing, v)
			}
			ack, err := didcomm.PackFor([]byte(`{"@type":"`+TypeAckV2+`","status":"OK","~thread":{"thid":"th-1"}}`), keys, routing, vpriv)
			if err != nil {
				t.Fatal(err)
			}
			status, _, err := Post(context.Background(), nil, w.URL(), ack)
			if err != nil || status != http.StatusAccepted {
				t.Fatalf("post: %d %v", status, err)
			}
			r := w.Next()
			if r.Type() != TypeAckV2 || r.ThreadID() != "th-1" || r.Sender != vk || r.Forwarded != tt.mediator || len(w.Forwards()) != map[bool]int{true: 1}[tt.mediator] {
				t.Fatalf("received %+v", r)
			}
			w.None()
		})
	}
}

func TestPresentationV1AndIndy(t *testing.T) {
	_, vdid := verifierKey(t)
	u, _ := invitationURL(t, vdid, v1Request(), false)
	w := NewT(t, Options{NoEndpoint: true})
	inv := w.ReadInvitation(u)
	payload, err := AutoPresentation(inv, map[string]any{"name": "Alice"})
	if err != nil {
		t.Fatal(err)
	}
	msg := w.Presentation(inv, payload, PresentOptions{})
	att := msg["presentations~attach"].([]any)[0].(map[string]any)
	if msg["@type"] != TypePresentationV1 || att["@id"] != AttachIDPresentationV1 || msg["~service"] != nil {
		t.Fatalf("message %v", msg)
	}
	raw, _ := base64.StdEncoding.DecodeString(att["data"].(map[string]any)["base64"].(string))
	var proof struct {
		RequestedProof struct {
			RevealedAttrs      map[string]map[string]any `json:"revealed_attrs"`
			RevealedAttrGroups map[string]map[string]any `json:"revealed_attr_groups"`
			Predicates         map[string]any            `json:"predicates"`
		} `json:"requested_proof"`
		Identifiers []map[string]any `json:"identifiers"`
	}
	if err := json.Unmarshal(raw, &proof); err != nil {
		t.Fatal(err)
	}
	rp := proof.RequestedProof
	if rp.RevealedAttrs["a1"]["raw"] != "Alice" || rp.RevealedAttrGroups["g1"] == nil || rp.Predicates["p1"] == nil || proof.Identifiers[0]["cred_def_id"] != "X:3:CL:1:t" {
		t.Fatalf("proof %s", raw)
	}
}

// TestEncodeAttr: AnonCreds' encoding, as ACA-Py and Credo compute it.
func TestEncodeAttr(t *testing.T) {
	for raw, want := range map[string]string{
		"Alice": "27034640024117331033063128044004318218486816931520886405535659934417438781507",
		"18":    "18",
		"-5":    "-5",
	} {
		if got := EncodeAttr(raw); got != want {
			t.Errorf("EncodeAttr(%q) = %s, want %s", raw, got, want)
		}
	}
}
