package integration

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// invitationFromURL decodes the ?oob= parameter of a long invitation URL.
func invitationFromURL(t *testing.T, long string) map[string]any {
	t.Helper()
	u, err := url.Parse(long)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(u.Query().Get("oob"))
	if err != nil {
		t.Fatalf("oob parameter is not unpadded base64url: %v", err)
	}
	var inv map[string]any
	if err := json.Unmarshal(raw, &inv); err != nil {
		t.Fatal(err)
	}
	return inv
}

// attachedRequest returns the request-presentation message inside an
// invitation's requests~attach.
func attachedRequest(t *testing.T, inv map[string]any) map[string]any {
	t.Helper()
	atts, _ := inv["requests~attach"].([]any)
	if len(atts) != 1 {
		t.Fatalf("requests~attach: %v", inv["requests~attach"])
	}
	data := atts[0].(map[string]any)["data"].(map[string]any)
	var msg map[string]any
	if b64, ok := data["base64"].(string); ok {
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			raw, err = base64.RawURLEncoding.DecodeString(b64)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &msg); err != nil {
			t.Fatal(err)
		}
	} else {
		msg, _ = data["json"].(map[string]any)
	}
	if msg == nil {
		t.Fatalf("attachment carries no message: %v", atts[0])
	}
	return msg
}

// formatAttachment returns the decoded payload of the request-presentation's
// first attachment.
func formatAttachment(t *testing.T, msg map[string]any) map[string]any {
	t.Helper()
	atts := msg["request_presentations~attach"].([]any)
	data := atts[0].(map[string]any)["data"].(map[string]any)
	if b64, ok := data["base64"].(string); ok {
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	return data["json"].(map[string]any)
}

func TestSendOutOfBandIndy(t *testing.T) {
	startCaddy(t, "")
	r := postJSON(t, oobPath(orgA, "indy"), keyA, indyBody)
	if r.status != http.StatusCreated {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	env := r.json(t)
	if env["statusCode"] != float64(201) || env["success"] != true || env["message"] != "Proof request sent successfully." {
		t.Fatalf("envelope %v", env)
	}
	data := env["data"].(map[string]any)
	for _, f := range []string{"proofRecordId", "proofRecordThId", "outOfBandId", "invitationUrl", "longInvitationUrl", "invitation"} {
		if data[f] == nil || data[f] == "" {
			t.Errorf("data.%s missing: %v", f, data)
		}
	}
	if data["invitationUrl"] != data["longInvitationUrl"] {
		t.Errorf("without isShortenUrl the invitation URL is the long one")
	}
	inv := invitationFromURL(t, data["longInvitationUrl"].(string))
	if inv["@type"] != "https://didcomm.org/out-of-band/1.1/invitation" || inv["@id"] != data["outOfBandId"] {
		t.Fatalf("invitation %v", inv)
	}
	services := inv["services"].([]any)
	svc := services[0].(map[string]any)
	if svc["type"] != "did-communication" || !strings.HasPrefix(svc["recipientKeys"].([]any)[0].(string), "did:key:z6Mk") {
		t.Fatalf("service %v", svc)
	}
	msg := attachedRequest(t, inv)
	if msg["@type"] != "https://didcomm.org/present-proof/2.0/request-presentation" {
		t.Fatalf("message %v", msg)
	}
	if thid := msg["~thread"].(map[string]any)["thid"]; thid != data["proofRecordThId"] {
		t.Fatalf("thread %v, record thread %v", thid, data["proofRecordThId"])
	}
	req := formatAttachment(t, msg)
	if req["name"] != "age check" || req["nonce"] == "" {
		t.Fatalf("proof request %v", req)
	}
	if req["requested_predicates"].(map[string]any)["pred1"].(map[string]any)["p_value"] != float64(18) {
		t.Fatalf("proof request %v", req)
	}
}

func TestSendOutOfBandPresentationExchangeShortURL(t *testing.T) {
	startCaddy(t, "")
	r := postJSON(t, oobPath(orgA, "presentationExchange"), keyAll, peBody)
	if r.status != http.StatusCreated {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	data := r.json(t)["data"].(map[string]any)
	short := data["invitationUrl"].(string)
	if !strings.HasPrefix(short, base+"/url/") || short == data["longInvitationUrl"] {
		t.Fatalf("short URL %q", short)
	}
	msg := attachedRequest(t, invitationFromURL(t, data["longInvitationUrl"].(string)))
	pe := formatAttachment(t, msg)
	if pe["presentation_definition"].(map[string]any)["id"] != "32f54163-7166-48f1-93d8-ff217bdb0653" {
		t.Fatalf("definition %v", pe)
	}
	if pe["options"].(map[string]any)["challenge"] == "" {
		t.Fatal("no challenge")
	}

	// A wallet asks for JSON and gets the invitation.
	path := strings.TrimPrefix(short, base)
	j := do(t, http.MethodGet, path, "", "Accept: application/json")
	if j.status != http.StatusOK || !strings.HasPrefix(j.header.Get("Content-Type"), "application/json") {
		t.Fatalf("short URL JSON: %d %s", j.status, j.body)
	}
	var inv map[string]any
	if err := json.Unmarshal(j.body, &inv); err != nil || inv["@id"] != data["outOfBandId"] {
		t.Fatalf("short URL JSON %s", j.body)
	}
	// A browser gets the invitation page (invitation_page_test.go); a
	// client that asks for neither JSON nor HTML is redirected to the
	// long URL (RFC 0434).
	b := do(t, http.MethodGet, path, "", "Accept: text/html")
	if b.status != http.StatusOK || !strings.HasPrefix(b.header.Get("Content-Type"), "text/html") {
		t.Fatalf("short URL page: %d %v", b.status, b.header)
	}
	plain := do(t, http.MethodGet, path, "")
	if plain.status != http.StatusFound || plain.header.Get("Location") != data["longInvitationUrl"] {
		t.Fatalf("short URL redirect: %d %v", plain.status, plain.header)
	}
	wantBody(t, do(t, http.MethodGet, "/url/AAAAAAAAAAAAAAAA", ""), http.StatusNotFound,
		`{"statusCode":404,"error":"Not Found","message":"this invitation link is unknown or has expired"}`)
	wantBody(t, do(t, http.MethodPost, path, ""), http.StatusMethodNotAllowed, "")
}

func TestEveryProtocolVersionAndSpelling(t *testing.T) {
	startCaddy(t, "")
	for name, tc := range map[string]struct{ requestType, body, wantType string }{
		"indy v1": {"indy", strings.Replace(indyBody, `"isShortenUrl":false`, `"isShortenUrl":false,"protocolVersion":"v1"`, 1),
			"https://didcomm.org/present-proof/1.0/request-presentation"},
		"pe listed array form": {"presentationExchange", `{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":[{"input_descriptors":[{"id":"a","name":"A","purpose":"p","schema":[{"uri":"https://www.w3.org/2018/credentials#VerifiableCredential"}],"constraints":{"fields":[{"path":["$.type"]}]}}]}]}`,
			"https://didcomm.org/present-proof/2.0/request-presentation"},
		"pe camelCase sample": {"presentationExchange", `{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":{"id":"4f9f8b5e-6a0e-4d4a-9b8e-0c7b4f1e2d3c","inputDescriptors":[{"id":"a","schema":[{"uri":"https://example.com/schema"}]}]}}`,
			"https://didcomm.org/present-proof/2.0/request-presentation"},
	} {
		t.Run(name, func(t *testing.T) {
			r := postJSON(t, oobPath(orgA, tc.requestType), keyA, tc.body)
			if r.status != http.StatusCreated {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			data := r.json(t)["data"].(map[string]any)
			msg := attachedRequest(t, invitationFromURL(t, data["invitationUrl"].(string)))
			if msg["@type"] != tc.wantType {
				t.Fatalf("message type %v", msg["@type"])
			}
		})
	}
}
