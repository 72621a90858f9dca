package integration

import (
	"net/http"
	"strings"
	"testing"

	acapyenv "github.com/proofgate/proofgate/internal/testenv/acapy"
)

// TestRealACAPyThroughCaddy puts proofgate in acapy mode in front of a real
// ACA-Py (from PyPI, started by the test) and sends proof requests through
// Caddy: the invitation that ACA-Py makes must carry our proof request.
func TestRealACAPyThroughCaddy(t *testing.T) {
	agent := acapyenv.Shared(t) // the verifier TestRealACAPyFullExchange uses too
	tester := newTester(t)
	tester.InitServer(globalOptions(t.TempDir())+`
`+base+` {
	proofgate {
		backend local local {
			public_url `+base+`
		}
		backend aca acapy `+agent.AdminURL+` {
			api_key `+agent.APIKey+`
		}
		org `+orgA+` aca
		default_backend local
		auth {
			api_key `+keyA+` org `+orgA+`
		}
	}
}
`, "caddyfile")
	settle(t)

	for _, tc := range []struct {
		name, requestType, body, format string
	}{
		{"indy", "indy", indyBody, "hlindy/proof-req@v2.0"},
		{"presentation exchange", "presentationExchange", strings.Replace(peBody, `"isShortenUrl":true`, `"isShortenUrl":false`, 1), "dif/presentation-exchange/definitions@v1.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := postJSON(t, oobPath(orgA, tc.requestType), keyA, tc.body)
			if r.status != http.StatusCreated {
				t.Fatalf("create: %d %s\n%s", r.status, r.body, agent.Logs())
			}
			data := r.json(t)["data"].(map[string]any)
			inv := data["invitation"].(map[string]any)
			if inv["@id"] != data["outOfBandId"] {
				t.Fatalf("outOfBandId %v, invitation %v", data["outOfBandId"], inv["@id"])
			}
			svc := inv["services"].([]any)[0].(map[string]any)
			if svc["serviceEndpoint"] != agent.Endpoint {
				t.Fatalf("the invitation is not ACA-Py's: %v", svc)
			}
			msg := attachedRequest(t, inv)
			if msg["~thread"] != nil {
				if thid, ok := msg["~thread"].(map[string]any)["thid"]; ok && thid != data["proofRecordThId"] {
					t.Fatalf("thread %v, record thread %v", thid, data["proofRecordThId"])
				}
			}
			formats := msg["formats"].([]any)
			if formats[0].(map[string]any)["format"] != tc.format {
				t.Fatalf("formats %v", formats)
			}
			payload := formatAttachment(t, msg)
			switch tc.requestType {
			case "indy":
				if payload["name"] != "age check" || payload["nonce"] == nil {
					t.Fatalf("proof request %v", payload)
				}
				if _, ok := payload["requested_predicates"].(map[string]any)["pred1"]; !ok {
					t.Fatalf("proof request %v", payload)
				}
			default:
				pd := payload["presentation_definition"].(map[string]any)
				ids := pd["input_descriptors"].([]any)
				if pd["id"] != "32f54163-7166-48f1-93d8-ff217bdb0653" || ids[0].(map[string]any)["id"] != "citizenship" {
					t.Fatalf("definition %v", pd)
				}
			}

			// ACA-Py refuses to verify before a presentation came: 409.
			id := data["proofRecordId"].(string)
			a := postJSON(t, acceptPath(id), keyA, "")
			if a.status != http.StatusConflict || !strings.Contains(string(a.body), "request-sent") {
				t.Fatalf("accept in request-sent: %d %s", a.status, a.body)
			}
		})
	}

	t.Run("unknown record is asked of the org's agent: 404", func(t *testing.T) {
		wantBody(t, postJSON(t, acceptPath("6f2b4a3e-0f5c-4e8e-9d2a-2a7b7c6d5e4f"), keyA, ""), http.StatusNotFound, "")
	})
}
