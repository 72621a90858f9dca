package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// waitRecord waits until the stored record id has left request-sent and
// returns it (the ProofExchangeRecord as the API gives it).
func waitRecord(t *testing.T, storage, id string, timeout time.Duration) map[string]any {
	t.Helper()
	var rec map[string]any
	deadline := time.Now().Add(timeout)
	for {
		if raw := storedRecordDoc(t, storage, id); raw != nil {
			var doc struct {
				Record map[string]any `json:"record"`
			}
			if json.Unmarshal(raw, &doc) == nil && doc.Record != nil {
				rec = doc.Record
				if rec["state"] != "request-sent" {
					return rec
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("record %s still %v after %s", id, rec["state"], timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestLocalVerifierVerifiesW3CPresentations drives Caddy's local backend
// with the test wallet's presentations, signed for real: valid ones (JSON-LD
// and JWT) are verified and accepted; tampered, expired, wrong-challenge,
// wrong-holder and unknown-context ones are abandoned with isVerified false,
// the reason in metadata.verification and errorMessage, and a problem
// report to the wallet naming it.
func TestLocalVerifierVerifiesW3CPresentations(t *testing.T) {
	storage := t.TempDir()
	tester := newTester(t)
	tester.InitServer(globalOptions(storage)+`
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

	ctx := context.Background()
	w := wallet.NewT(t, wallet.Options{})
	holder := w.Holder()
	stranger, err := wallet.NewHolder(nil)
	if err != nil {
		t.Fatal(err)
	}
	issue := func(o wallet.CredentialOptions) map[string]any {
		o.Subject = map[string]any{"license": "B"}
		c, err := holder.Issue(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cred := issue(wallet.CredentialOptions{})
	expired := issue(wallet.CredentialOptions{IssuanceDate: time.Now().Add(-48 * time.Hour), ExpirationDate: time.Now().Add(-24 * time.Hour)})
	signed := func(inv *wallet.Invitation, o wallet.PresentationOptions, c map[string]any) map[string]any {
		vp, err := holder.SignedVP(ctx, inv, o, wallet.Submitted{DescriptorID: "citizenship", Credential: c})
		if err != nil {
			t.Fatal(err)
		}
		return vp
	}
	tests := []struct {
		name    string
		present func(inv *wallet.Invitation) any
		reason  string // "" = verified
	}{
		{"valid", func(inv *wallet.Invitation) any { return signed(inv, wallet.PresentationOptions{}, cred) }, ""},
		{"valid JWT", func(inv *wallet.Invitation) any {
			vc, err := holder.JWTCredential(wallet.CredentialOptions{Subject: map[string]any{"license": "B"}})
			if err != nil {
				t.Fatal(err)
			}
			vp, err := holder.JWTVP(inv, wallet.PresentationOptions{}, []string{"citizenship"}, []string{vc})
			if err != nil {
				t.Fatal(err)
			}
			return vp
		}, ""},
		{"tampered", func(inv *wallet.Invitation) any {
			return signed(inv, wallet.PresentationOptions{}, wallet.Tamper(cred, "license", "C"))
		}, "signature"},
		{"expired", func(inv *wallet.Invitation) any { return signed(inv, wallet.PresentationOptions{}, expired) }, "expired"},
		{"wrong challenge", func(inv *wallet.Invitation) any {
			return signed(inv, wallet.PresentationOptions{Challenge: uuid.NewString()}, cred)
		}, "challenge"},
		{"wrong holder", func(inv *wallet.Invitation) any {
			return signed(inv, wallet.PresentationOptions{SignedBy: stranger, Holder: stranger.DID}, cred)
		}, "holder-binding"},
		{"unknown context", func(inv *wallet.Invitation) any {
			return wallet.WithUnknownContext(signed(inv, wallet.PresentationOptions{}, cred))
		}, "unsupported-context"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, strings.Replace(peBody, `"isShortenUrl":true`, `"isShortenUrl":false`, 1))
			if r.status != http.StatusCreated {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
			data := r.json(t)["data"].(map[string]any)
			id := data["proofRecordId"].(string)
			inv := w.ReadInvitation(data["invitationUrl"].(string))
			env := w.Present(inv, tt.present(inv), false)
			if d := do(t, http.MethodPost, "/didcomm", string(env), "Content-Type: application/didcomm-envelope-enc"); d.status != http.StatusAccepted {
				t.Fatalf("presentation: %d %s", d.status, d.body)
			}
			rec := waitRecord(t, storage, id, 30*time.Second)
			raw, _ := json.Marshal(rec)
			v, _ := rec["metadata"].(map[string]any)["verification"].(map[string]any)
			if tt.reason == "" {
				if rec["state"] != "presentation-received" || rec["isVerified"] != true || v["verified"] != true {
					t.Fatalf("record %s", raw)
				}
				a := postJSON(t, acceptPath(id), keyA, "")
				if got := a.json(t); a.status != http.StatusOK || got["state"] != "done" || got["isVerified"] != true {
					t.Fatalf("accept: %d %s", a.status, a.body)
				}
				if ack := w.Next(); ack.Type() != "https://didcomm.org/present-proof/2.0/ack" || ack.ThreadID() != inv.ThreadID {
					t.Fatalf("ack %s", ack.Raw)
				}
				return
			}
			msg, _ := rec["errorMessage"].(string)
			if rec["state"] != "abandoned" || rec["isVerified"] != false || !strings.Contains(msg, tt.reason) {
				t.Fatalf("record %s, want abandoned with reason %s", raw, tt.reason)
			}
			// A wrong challenge is named by the structural check before
			// the verifier runs; every other case is the verifier's.
			if tt.reason != "challenge" && (v["reason"] != tt.reason || v["verified"] != false) {
				t.Fatalf("metadata.verification %v, want reason %s", v, tt.reason)
			}
			if tt.reason == "unsupported-context" && !strings.Contains(msg, "unsupported context "+wallet.UnknownContext) {
				t.Fatalf("errorMessage %q does not name the context", msg)
			}
			report := w.Next()
			if report.Type() != "https://didcomm.org/present-proof/2.0/problem-report" || report.ThreadID() != inv.ThreadID ||
				!strings.Contains(report.Message["description"].(map[string]any)["en"].(string), tt.reason) {
				t.Fatalf("problem report %s", report.Raw)
			}
			wantBody(t, postJSON(t, acceptPath(id), keyA, ""), http.StatusConflict, "")
		})
	}
}
