package integration

import (
	"context"
	"net/http"
	"runtime"
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
	// A self-issued credential in a presentation signed with our
	// challenge (no domain, as ACA-Py signs).
	citizenship := func(inv *wallet.Invitation, o wallet.PresentationOptions) map[string]any {
		h := w.Holder()
		cred, err := h.Issue(context.Background(), wallet.CredentialOptions{Subject: map[string]any{"license": "B"}})
		if err != nil {
			t.Fatal(err)
		}
		vp, err := h.SignedVP(context.Background(), inv, o, wallet.Submitted{DescriptorID: "citizenship", Credential: cred})
		if err != nil {
			t.Fatal(err)
		}
		return vp
	}
	env := w.Present(inv, citizenship(inv, wallet.PresentationOptions{}), false)

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
	if rec["state"] != "done" || rec["isVerified"] != true || check["answersRequest"] != true || check["signaturesVerified"] != true || check["verified"] != true {
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
	env = w.Present(inv, citizenship(inv, wallet.PresentationOptions{Challenge: uuid.NewString()}), false)
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

// TestDIDCommJSONPathBomb: issue #7's bomb through a real Caddy: a 4 KB
// anoncrypted presentation whose descriptor path is $..*..*..* over a
// 300-deep document (refused before decoding, 400), and the same path
// over a document within the limits (taken: the record is abandoned for
// a path that is not plain). Each costs far less than the 50 MB the issue
// allows (measured as heap allocated by the whole process).
func TestDIDCommJSONPathBomb(t *testing.T) {
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

	for _, tt := range []struct {
		name   string
		depth  int
		status int
	}{
		{"300 deep", 300, http.StatusBadRequest},
		{"50 deep", 50, http.StatusAccepted},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, strings.Replace(peBody, `"isShortenUrl":true`, `"isShortenUrl":false`, 1))
			data := r.json(t)["data"].(map[string]any)
			w := wallet.NewT(t, wallet.Options{NoEndpoint: true})
			inv := w.ReadInvitation(data["invitationUrl"].(string))
			var doc any = "x"
			for i := 0; i < tt.depth; i++ {
				doc = map[string]any{"a": doc}
			}
			vp := wallet.UnsignedVP(inv, wallet.Submitted{DescriptorID: "citizenship", Credential: map[string]any{"deep": doc}})
			vp["presentation_submission"].(map[string]any)["descriptor_map"].([]any)[0].(map[string]any)["path"] = "$..*..*..*"
			env := w.Pack(inv, w.Presentation(inv, vp, wallet.PresentOptions{NoService: true}), true)
			if len(env) > 6<<10 {
				t.Fatalf("bomb of %d bytes", len(env))
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			d := do(t, http.MethodPost, "/didcomm", string(env), "Content-Type: application/didcomm-envelope-enc")
			runtime.ReadMemStats(&after)
			if d.status != tt.status {
				t.Fatalf("%d %s", d.status, d.body)
			}
			if grown := after.TotalAlloc - before.TotalAlloc; grown > 50<<20 {
				t.Fatalf("one %d byte bomb allocated %d bytes", len(env), grown)
			}
			// The state, as accept reports it.
			a := postJSON(t, acceptPath(data["proofRecordId"].(string)), keyA, "")
			want := "request-sent"
			if tt.status == http.StatusAccepted {
				want = "abandoned"
			}
			if a.status != http.StatusConflict || !strings.Contains(string(a.body), want) {
				t.Fatalf("accept: %d %s", a.status, a.body)
			}
		})
	}
}
