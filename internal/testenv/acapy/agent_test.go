package acapy

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestStartStops checks that Start's agent is this test's own (insecure
// admin mode, no key needed) and is gone once the test ends.
func TestStartStops(t *testing.T) {
	t.Parallel()
	var admin string
	t.Run("run", func(t *testing.T) {
		agent := Start(t, InsecureAdmin())
		if agent.APIKey != "" {
			t.Fatalf("InsecureAdmin agent has an API key")
		}
		admin = agent.AdminURL
		status, body := agent.Call(t, http.MethodGet, "/present-proof-2.0/records", "", nil)
		expectStatus(t, "records without a key in insecure mode", status, http.StatusOK, body)
		if string(body) != `{"results": []}` {
			t.Errorf("fresh wallet has records: %s", body)
		}
	})
	if admin == "" {
		return // skipped
	}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, admin+"/status/live", nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("agent at %s still answers after its test ended", admin)
	}
}

// presExRecord is the part of ACA-Py's V20PresExRecord the tests read.
type presExRecord struct {
	PresExID     string  `json:"pres_ex_id"`
	ThreadID     string  `json:"thread_id"`
	State        string  `json:"state"`
	Role         string  `json:"role"`
	Initiator    string  `json:"initiator"`
	ConnectionID *string `json:"connection_id"`
	PresRequest  struct {
		Type        string `json:"@type"`
		ID          string `json:"@id"`
		WillConfirm bool   `json:"will_confirm"`
		Formats     []struct {
			AttachID string `json:"attach_id"`
			Format   string `json:"format"`
		} `json:"formats"`
		Attach []attachment `json:"request_presentations~attach"`
	} `json:"pres_request"`
	ByFormat struct {
		PresRequest map[string]json.RawMessage `json:"pres_request"`
	} `json:"by_format"`
}

type attachment struct {
	ID       string `json:"@id"`
	MimeType string `json:"mime-type"`
	Data     struct {
		Base64 string          `json:"base64"`
		JSON   json.RawMessage `json:"json"`
	} `json:"data"`
}

// content returns the attachment's payload, whichever encoding it uses.
func (a attachment) content(t *testing.T) json.RawMessage {
	t.Helper()
	if a.Data.Base64 != "" {
		b, err := base64.StdEncoding.DecodeString(a.Data.Base64)
		if err != nil {
			t.Fatalf("attachment %s: %v", a.ID, err)
		}
		return b
	}
	return a.Data.JSON
}

type oobRecord struct {
	State         string          `json:"state"`
	InviMsgID     string          `json:"invi_msg_id"`
	OOBID         string          `json:"oob_id"`
	InvitationURL string          `json:"invitation_url"`
	Invitation    json.RawMessage `json:"invitation"`
}

type invitation struct {
	Type     string `json:"@type"`
	ID       string `json:"@id"`
	Label    string `json:"label"`
	Requests []struct {
		ID       string `json:"@id"`
		MimeType string `json:"mime-type"`
		Data     struct {
			JSON json.RawMessage `json:"json"`
		} `json:"data"`
	} `json:"requests~attach"`
	Services []struct {
		ID              string   `json:"id"`
		Type            string   `json:"type"`
		RecipientKeys   []string `json:"recipientKeys"`
		ServiceEndpoint string   `json:"serviceEndpoint"`
	} `json:"services"`
}

func decode(t *testing.T, what string, body []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("%s: %v in %s", what, err, body)
	}
}

func expectStatus(t *testing.T, what string, got, want int, body []byte) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: status %d, want %d: %s", what, got, want, body)
	}
}

func indyRequest() map[string]any {
	return map[string]any{
		"presentation_request": map[string]any{"indy": map[string]any{
			"name":    "proofgate-indy",
			"version": "1.0",
			"requested_attributes": map[string]any{
				"attr1": map[string]any{"name": "name", "restrictions": []any{map[string]any{"schema_name": "passport"}}},
			},
			// 0.12.8 answers 422 "Missing data for required field." without it.
			"requested_predicates": map[string]any{
				"pred1": map[string]any{"name": "age", "p_type": ">=", "p_value": 18},
			},
		}},
		"comment":     "proofgate harness",
		"auto_verify": false,
		"auto_remove": false, // the default is true: the record would vanish once done
	}
}

func difRequest(pdID, challenge string) map[string]any {
	return map[string]any{
		"presentation_request": map[string]any{"dif": map[string]any{
			"options": map[string]any{"challenge": challenge, "domain": "proofgate.test"},
			"presentation_definition": map[string]any{
				"id": pdID,
				"input_descriptors": []any{map[string]any{
					"id":     "citizenship_input_1",
					"name":   "EU Driver",
					"schema": []any{map[string]any{"uri": "https://www.w3.org/2018/credentials#VerifiableCredential"}},
					"constraints": map[string]any{"fields": []any{map[string]any{
						"path": []any{"$.credentialSubject.givenName"},
					}}},
				}},
			},
		}},
		"auto_verify": false,
		"auto_remove": false,
	}
}

// TestProofRequestOverOOB drives the admin calls the acapy backend makes —
// create-request, then an OOB invitation carrying it — against a real agent,
// plus the error answers the backend must map.
func TestProofRequestOverOOB(t *testing.T) {
	t.Parallel()
	agent := Shared(t)
	if agent.Version != Version {
		t.Errorf("agent version %q, want %s (.ci/acapy-venv.sh)", agent.Version, Version)
	}
	pdID, challenge := uuid.NewString(), uuid.NewString()

	tests := []struct {
		name     string
		body     map[string]any
		attachID string
		format   string
		check    func(t *testing.T, payload json.RawMessage)
	}{
		{
			name: "indy", body: indyRequest(), attachID: "indy", format: "hlindy/proof-req@v2.0",
			check: func(t *testing.T, payload json.RawMessage) {
				var pr struct {
					Name  string `json:"name"`
					Nonce string `json:"nonce"`
					Attrs map[string]struct {
						Name string `json:"name"`
					} `json:"requested_attributes"`
				}
				decode(t, "indy proof request", payload, &pr)
				if pr.Name != "proofgate-indy" || pr.Attrs["attr1"].Name != "name" {
					t.Errorf("indy proof request not carried: %s", payload)
				}
				if !regexp.MustCompile(`^[1-9][0-9]*$`).MatchString(pr.Nonce) {
					t.Errorf("nonce %q: ACA-Py should have added a decimal nonce", pr.Nonce)
				}
			},
		},
		{
			name: "dif", body: difRequest(pdID, challenge), attachID: "dif", format: "dif/presentation-exchange/definitions@v1.0",
			check: func(t *testing.T, payload json.RawMessage) {
				var d struct {
					Options struct {
						Challenge string `json:"challenge"`
					} `json:"options"`
					PD struct {
						ID string `json:"id"`
					} `json:"presentation_definition"`
				}
				decode(t, "dif request", payload, &d)
				if d.PD.ID != pdID || d.Options.Challenge != challenge {
					t.Errorf("dif request not carried (want id %s, challenge %s): %s", pdID, challenge, payload)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := agent.Call(t, http.MethodPost, "/present-proof-2.0/create-request", "", tc.body)
			expectStatus(t, "create-request", status, http.StatusOK, body)
			var rec presExRecord
			decode(t, "create-request", body, &rec)
			if rec.State != "request-sent" || rec.Role != "verifier" || rec.Initiator != "self" || rec.ConnectionID != nil {
				t.Errorf("record state=%q role=%q initiator=%q connection=%v", rec.State, rec.Role, rec.Initiator, rec.ConnectionID)
			}
			if _, err := uuid.Parse(rec.PresExID); err != nil {
				t.Errorf("pres_ex_id %q: %v", rec.PresExID, err)
			}
			if rec.ThreadID == "" || rec.ThreadID != rec.PresRequest.ID {
				t.Errorf("thread_id %q, request @id %q: ACA-Py 0.12 uses the request @id as thread id", rec.ThreadID, rec.PresRequest.ID)
			}
			if rec.PresRequest.Type != "https://didcomm.org/present-proof/2.0/request-presentation" || !rec.PresRequest.WillConfirm {
				t.Errorf("request @type %q will_confirm %v", rec.PresRequest.Type, rec.PresRequest.WillConfirm)
			}
			if len(rec.PresRequest.Formats) != 1 || rec.PresRequest.Formats[0].AttachID != tc.attachID || rec.PresRequest.Formats[0].Format != tc.format {
				t.Errorf("formats %+v, want one %s/%s", rec.PresRequest.Formats, tc.attachID, tc.format)
			}
			if len(rec.PresRequest.Attach) != 1 || rec.PresRequest.Attach[0].ID != tc.attachID {
				t.Fatalf("request attachments %+v", rec.PresRequest.Attach)
			}
			tc.check(t, rec.PresRequest.Attach[0].content(t))
			if _, ok := rec.ByFormat.PresRequest[tc.attachID]; !ok {
				t.Errorf("by_format.pres_request lacks %q", tc.attachID)
			}

			// The OOB invitation carrying the request, connectionless.
			status, body = agent.Call(t, http.MethodPost, "/out-of-band/create-invitation", "", map[string]any{
				"attachments": []any{map[string]any{"id": rec.PresExID, "type": "present-proof"}},
				"my_label":    "proofgate verifier",
				"goal_code":   "request-proof",
			})
			expectStatus(t, "create-invitation", status, http.StatusOK, body)
			var oob oobRecord
			decode(t, "create-invitation", body, &oob)
			var inv invitation
			decode(t, "invitation", oob.Invitation, &inv)
			if inv.Type != "https://didcomm.org/out-of-band/1.1/invitation" || inv.ID != oob.InviMsgID || oob.State != "initial" {
				t.Errorf("invitation @type %q @id %q invi_msg_id %q state %q", inv.Type, inv.ID, oob.InviMsgID, oob.State)
			}
			if len(inv.Requests) != 1 || inv.Requests[0].ID != "request-0" || inv.Requests[0].MimeType != "application/json" {
				t.Fatalf("requests~attach %s", oob.Invitation)
			}
			var attached struct {
				Type   string `json:"@type"`
				ID     string `json:"@id"`
				Thread struct {
					PThID string `json:"pthid"`
				} `json:"~thread"`
				Attach []attachment `json:"request_presentations~attach"`
			}
			decode(t, "attached request", inv.Requests[0].Data.JSON, &attached)
			if attached.ID != rec.PresRequest.ID || attached.Thread.PThID != inv.ID {
				t.Errorf("attached request @id %q pthid %q; want %q and the invitation @id %q", attached.ID, attached.Thread.PThID, rec.PresRequest.ID, inv.ID)
			}
			if len(attached.Attach) != 1 {
				t.Fatalf("attached request has %d attachments", len(attached.Attach))
			}
			tc.check(t, attached.Attach[0].content(t))
			if len(inv.Services) != 1 || inv.Services[0].ServiceEndpoint != agent.Endpoint ||
				len(inv.Services[0].RecipientKeys) != 1 || !strings.HasPrefix(inv.Services[0].RecipientKeys[0], "did:key:z6Mk") {
				t.Errorf("services %+v, want one inline did:key service at %s", inv.Services, agent.Endpoint)
			}

			// invitation_url = endpoint + "?oob=" + base64url of the invitation,
			// padded with "=" by 0.12.8, sometimes padded by 1.x too (the
			// length of the invitation decides): accept both.
			u, err := url.Parse(oob.InvitationURL)
			if err != nil || !strings.HasPrefix(oob.InvitationURL, agent.Endpoint+"?oob=") {
				t.Fatalf("invitation_url %q (%v)", oob.InvitationURL, err)
			}
			raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(u.Query().Get("oob"), "="))
			if err != nil {
				t.Fatalf("oob parameter: %v", err)
			}
			var fromURL invitation
			decode(t, "invitation from URL", raw, &fromURL)
			if fromURL.ID != inv.ID || len(fromURL.Requests) != 1 {
				t.Errorf("URL invitation @id %q, want %q", fromURL.ID, inv.ID)
			}

			// The record is still request-sent, and accepting it now is a state error.
			status, body = agent.Call(t, http.MethodGet, "/present-proof-2.0/records/"+rec.PresExID, "", nil)
			expectStatus(t, "get record", status, http.StatusOK, body)
			status, body = agent.Call(t, http.MethodPost, "/present-proof-2.0/records/"+rec.PresExID+"/verify-presentation", "", nil)
			expectStatus(t, "verify-presentation in request-sent", status, http.StatusBadRequest, body)
			want := "400: Presentation exchange " + rec.PresExID + " in request-sent state (must be presentation-received)"
			if string(body) != want {
				t.Errorf("state error body %q, want %q", body, want)
			}
		})
	}

	errorCases := []struct {
		name, method, path string
		noKey              bool
		body               any
		status             int
		want               string // exact body, or a JSON fragment for 422
	}{
		{name: "unknown record", method: http.MethodGet, path: "/present-proof-2.0/records/6f2b4a3e-0f5c-4e8e-9d2a-2a7b7c6d5e4f",
			status: 404, want: "404: Record not found: pres_ex_v20/6f2b4a3e-0f5c-4e8e-9d2a-2a7b7c6d5e4f."},
		{name: "verify unknown record", method: http.MethodPost, path: "/present-proof-2.0/records/6f2b4a3e-0f5c-4e8e-9d2a-2a7b7c6d5e4f/verify-presentation",
			status: 404, want: "404: Record not found: pres_ex_v20/6f2b4a3e-0f5c-4e8e-9d2a-2a7b7c6d5e4f."},
		{name: "not a UUID4", method: http.MethodGet, path: "/present-proof-2.0/records/not-a-uuid",
			status: 422, want: `422: {'match_info': {'pres_ex_id': ['Value not-a-uuid is not UUID4 (8-4-4-4-12 hex digits with digit#13=4)']}}`},
		{name: "invitation for unknown record", method: http.MethodPost, path: "/out-of-band/create-invitation",
			body:   map[string]any{"attachments": []any{map[string]any{"id": "6f2b4a3e-0f5c-4e8e-9d2a-2a7b7c6d5e4f", "type": "present-proof"}}},
			status: 400, want: "400: Record not found: pres_ex_v20/6f2b4a3e-0f5c-4e8e-9d2a-2a7b7c6d5e4f."},
		{name: "DIF ids must be UUID4", method: http.MethodPost, path: "/present-proof-2.0/create-request",
			body:   difRequest("first simple example", "abc"),
			status: 422, want: `422: {'json': {'presentation_request': {'dif': {'options': {'challenge': ['Value abc is not UUID4 (8-4-4-4-12 hex digits with digit#13=4)']}, 'presentation_definition': {'id': ['Value first simple example is not UUID4 (8-4-4-4-12 hex digits with digit#13=4)']}}}}}`},
		{name: "no API key", method: http.MethodGet, path: "/present-proof-2.0/records", noKey: true,
			status: 401, want: "401: API key missing or invalid"},
	}
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			a := agent
			if tc.noKey {
				anon := *agent
				anon.APIKey = ""
				a = &anon
			}
			status, body := a.Call(t, tc.method, tc.path, "", tc.body)
			if status != tc.status || string(body) != tc.want {
				t.Errorf("status %d body %q; want %d %q", status, body, tc.status, tc.want)
			}
		})
	}
}

// TestMultitenantWalletTokens checks the per-wallet Bearer tokens the acapy
// backend sends for tenants (Askar sub-wallets).
func TestMultitenantWalletTokens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{name: "askar", opts: []Option{Multitenant()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			agent := Shared(t, tc.opts...)
			org1 := agent.CreateWallet(t, "org1")
			org2 := agent.CreateWallet(t, "org2")
			if org1.ID == org2.ID || org1.Token == org2.Token {
				t.Fatalf("two wallets share id or token: %+v %+v", org1, org2)
			}

			status, body := agent.Call(t, http.MethodPost, "/present-proof-2.0/create-request", org1.Token, indyRequest())
			expectStatus(t, "create-request as org1", status, http.StatusOK, body)
			var rec presExRecord
			decode(t, "create-request", body, &rec)

			recPath := "/present-proof-2.0/records/" + rec.PresExID
			status, body = agent.Call(t, http.MethodGet, recPath, org1.Token, nil)
			expectStatus(t, "org1 reads its record", status, http.StatusOK, body)
			status, body = agent.Call(t, http.MethodGet, recPath, org2.Token, nil)
			expectStatus(t, "org2 reads org1's record", status, http.StatusNotFound, body)

			// The base wallet's key alone does not reach tenant routes.
			status, body = agent.Call(t, http.MethodGet, recPath, "", nil)
			expectStatus(t, "API key without token", status, http.StatusUnauthorized, body)
			// In acapy-agent 1.x the wallet's token alone reaches its routes,
			// even with an admin API key configured (0.12.8 wanted both).
			anon := *agent
			anon.APIKey = ""
			status, body = anon.Call(t, http.MethodGet, recPath, org1.Token, nil)
			expectStatus(t, "token without API key", status, http.StatusOK, body)

			// ACA-Py accepts a wallet's token only while its iat equals the
			// iat of the wallet's latest token (second resolution), so a new
			// token revokes the older ones. Shown with tokens signed here.
			status, body = agent.Call(t, http.MethodPost, "/multitenancy/wallet/"+org1.ID+"/token", "", map[string]any{})
			expectStatus(t, "new token", status, http.StatusOK, body)
			var fresh struct {
				Token string `json:"token"`
			}
			decode(t, "new token", body, &fresh)
			iat := tokenIAT(t, fresh.Token)
			status, body = agent.Call(t, http.MethodGet, recPath, hs256(t, agent.JWTSecret, map[string]any{"wallet_id": org1.ID, "iat": iat - 1}), nil)
			if status != http.StatusUnauthorized || string(body) != "401: Token not valid." {
				t.Errorf("token with an older iat: %d %q, want 401 %q", status, body, "401: Token not valid.")
			}
			status, body = agent.Call(t, http.MethodGet, recPath, hs256(t, agent.JWTSecret, map[string]any{"wallet_id": org1.ID, "iat": iat}), nil)
			expectStatus(t, "token with the latest iat", status, http.StatusOK, body)
			status, body = agent.Call(t, http.MethodGet, recPath, fresh.Token, nil)
			expectStatus(t, "new token reads the record", status, http.StatusOK, body)
		})
	}
}

// tokenIAT reads the iat claim of a wallet token.
func tokenIAT(t *testing.T, token string) int64 {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d parts", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatalf("token payload: %v", err)
	}
	var claims struct {
		IAT int64 `json:"iat"`
	}
	decode(t, "token payload", payload, &claims)
	if claims.IAT == 0 {
		t.Fatalf("token has no iat: %s", payload)
	}
	return claims.IAT
}

// hs256 signs claims the way ACA-Py signs wallet tokens.
func hs256(t *testing.T, secret string, claims map[string]any) string {
	t.Helper()
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	signing := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + base64.RawURLEncoding.EncodeToString(payload)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(signing))
	return signing + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}
