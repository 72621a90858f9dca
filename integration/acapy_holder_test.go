package integration

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	acapyenv "github.com/proofgate/proofgate/internal/testenv/acapy"
)

// TestLocalVerifierWithACAPyHolder drives the local backend with a real
// ACA-Py holder: it receives the invitation proofgate made, answers the
// indy request with self-attested attributes (send-presentation; ACA-Py's
// auto-respond cannot self-attest), proofgate's accept acks it and the
// holder's record ends done; in present-proof 2.0 and 1.0, with
// reuseConnection true and false, each with a goalCode (ACA-Py refuses an
// invitation whose goal_code has no goal). A holder's problem report
// abandons the request.
func TestLocalVerifierWithACAPyHolder(t *testing.T) {
	holder := acapyenv.Shared(t, acapyenv.ExtraArgs(acapyenv.HolderArgs...))
	t.Logf("started: holder %s (ACA-Py %s)", holder.AdminURL, holder.Version)

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

	create := func(t *testing.T, version string, reuse bool) (id, thid string, inv json.RawMessage) {
		t.Helper()
		body := `{"isShortenUrl":false,"protocolVersion":"` + version + `","reuseConnection":` + map[bool]string{true: "true", false: "false"}[reuse] + `,
			"comment":"who are you","goalCode":"aries.vc.verify","proofFormats":{"indy":{"name":"self-attested","version":"1.0",
			"requested_attributes":{"given":{"name":"givenName"},"city":{"name":"city"}}}}}`
		r := postJSON(t, oobPath(orgA, "indy"), keyA, body)
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		data := r.json(t)["data"].(map[string]any)
		inv, err := json.Marshal(data["invitation"])
		if err != nil {
			t.Fatal(err)
		}
		return data["proofRecordId"].(string), data["proofRecordThId"].(string), inv
	}
	selfAttested := map[string]any{"given": "Alice", "city": "Zürich"}
	// acceptWhenPresented accepts once the presentation arrived (409
	// request-sent until then) and returns the accepted record.
	acceptWhenPresented := func(t *testing.T, id string) map[string]any {
		t.Helper()
		var a response
		acapyenv.Eventually(t, 30*time.Second, "the holder's presentation at proofgate", func() bool {
			a = postJSON(t, acceptPath(id), keyA, "")
			return !(a.status == http.StatusConflict && strings.Contains(string(a.body), "request-sent"))
		})
		if a.status != http.StatusOK {
			t.Fatalf("accept: %d %s", a.status, a.body)
		}
		return a.json(t)
	}

	for _, reuse := range []bool{true, false} {
		name := map[bool]string{true: "reuseConnection", false: "fresh key"}[reuse]
		t.Run("present-proof 2.0/"+name, func(t *testing.T) {
			id, thid, inv := create(t, "v2", reuse)
			holder.ReceiveInvitation(t, inv)
			req := holder.WaitPresEx(t, thid, time.Minute, "request-received")
			holder.SendPresentation(t, req.PresExID, map[string]any{"indy": map[string]any{
				"requested_attributes": map[string]any{}, "requested_predicates": map[string]any{},
				"self_attested_attributes": selfAttested,
			}})
			rec := acceptWhenPresented(t, id)
			if rec["state"] != "done" || rec["id"] != id || rec["threadId"] != thid {
				t.Fatalf("accepted record %v", rec)
			}
			holder.WaitPresEx(t, thid, 30*time.Second, "done")
		})
		t.Run("present-proof 1.0/"+name, func(t *testing.T) {
			id, thid, inv := create(t, "v1", reuse)
			holder.ReceiveInvitation(t, inv)
			req := holder.WaitPresExV1(t, thid, time.Minute, "request_received", "request-received")
			holder.SendPresentationV1(t, req.ID, map[string]any{
				"requested_attributes": map[string]any{}, "requested_predicates": map[string]any{},
				"self_attested_attributes": selfAttested,
			})
			rec := acceptWhenPresented(t, id)
			if rec["state"] != "done" || rec["protocolVersion"] != "v1" {
				t.Fatalf("accepted record %v", rec)
			}
			holder.WaitPresExV1(t, thid, 30*time.Second, "presentation_acked", "done")
		})
	}

	t.Run("problem report abandons the request", func(t *testing.T) {
		id, thid, inv := create(t, "v2", true)
		holder.ReceiveInvitation(t, inv)
		req := holder.WaitPresEx(t, thid, time.Minute, "request-received")
		holder.SendProblemReport(t, req.PresExID, "the holder declines")
		var a response
		acapyenv.Eventually(t, 30*time.Second, "the problem report at proofgate", func() bool {
			a = postJSON(t, acceptPath(id), keyA, "")
			return a.status == http.StatusConflict && strings.Contains(string(a.body), "abandoned")
		})
	})
}
