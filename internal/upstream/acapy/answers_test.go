package acapy

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/benchutil"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// Answers in ACA-Py 1.x's shapes (a V20PresExRecord with its request
// attached and by_format, an InvitationRecord), and variations the readers
// must treat exactly as encoding/json does.
const (
	samplePresEx = `{"state":"request-sent","created_at":"2026-01-02T03:04:05.678901Z","updated_at":"2026-01-02T03:04:05.678901Z",` +
		`"trace":false,"pres_ex_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","thread_id":"1b6c0a0f-5a3b-4a0d-9a6f-2b6a3c4d5e6f",` +
		`"initiator":"self","role":"verifier","pres_request":{"@type":"https://didcomm.org/present-proof/2.0/request-presentation",` +
		`"@id":"1b6c0a0f-5a3b-4a0d-9a6f-2b6a3c4d5e6f","will_confirm":true,"formats":[{"attach_id":"indy","format":"hlindy/proof-req@v2.0"}],` +
		`"request_presentations~attach":[{"@id":"indy","mime-type":"application/json","data":{"base64":` +
		`"eyJuYW1lIjogIlByb29mIG9mIEVkdWNhdGlvbiIsICJ2ZXJzaW9uIjogIjEuMCIsICJyZXF1ZXN0ZWRfYXR0cmlidXRlcyI6IHsiMF9uYW1lX3V1aWQiOiB7Im5hbWUiOiAibmFtZSIsICJyZXN0cmljdGlvbnMiOiBbeyJjcmVkX2RlZl9pZCI6ICJXZ1dxUW1TM1Q2OVZkSHhyVjZyZ3g6MzpDTDoxMjp0YWcifV19fSwgInJlcXVlc3RlZF9wcmVkaWNhdGVzIjoge30sICJub25jZSI6ICIxMjM0NTY3ODkwIn0="}}]},` +
		`"by_format":{"pres_request":{"indy":{"name":"Proof of Education","version":"1.0","requested_attributes":{"0_name_uuid":{"name":"name",` +
		`"restrictions":[{"cred_def_id":"WgWqQmS3T69VdHxrV6rgx:3:CL:12:tag"}]}},"requested_predicates":{},"nonce":"1234567890"}}},` +
		`"auto_present":false,"auto_verify":false,"auto_remove":false}`
	sampleInvitationRecord = `{"state":"initial","trace":false,"invi_msg_id":"0f1e2d3c-4b5a-4697-8876-5a4b3c2d1e0f","oob_id":"9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",` +
		`"invitation":{"@type":"https://didcomm.org/out-of-band/1.1/invitation","@id":"0f1e2d3c-4b5a-4697-8876-5a4b3c2d1e0f","label":"Verifier",` +
		`"accept":["didcomm/aip1","didcomm/aip2;env=rfc19"],"services":[{"id":"#inline","type":"did-communication",` +
		`"recipientKeys":["did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH"],"serviceEndpoint":"http://127.0.0.1:8020"}],` +
		`"requests~attach":[{"@id":"request-0","mime-type":"application/json","data":{"json":{"@type":"https://didcomm.org/present-proof/2.0/request-presentation"}}}]},` +
		`"invitation_url":"http://127.0.0.1:8020?oob=eyJAdHlwZSI6ICJodHRwczovL2RpZGNvbW0ub3JnL291dC1vZi1iYW5kLzEuMS9pbnZpdGF0aW9uIn0",` +
		`"created_at":"2026-01-02T03:04:05.678901Z","updated_at":"2026-01-02T03:04:05.678901Z"}`
)

var answerSeeds = []string{
	samplePresEx, sampleInvitationRecord, `null`, `{}`, `[]`, `"x"`,
	`{"pres_ex_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","thread_id":"t","state":"done","verified":true}`,
	`{"pres_ex_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","thread_id":"t","state":"done","verified":"false","Verified":"true"}`,
	`{"pres_ex_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","thread_id":"t","thread_id":"u","state":"done"}`,
	`{"pres_ex_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","thread_id":"t\u00e9","state":"done","created_at":5}`,
	`{"invitation":null,"invitation_url":"u"}`, `{"invitation":{"@id":7},"invitation_url":"u"}`,
	`{"invitation":{"@id":"x"},"invitation_url":null}`, `{"invitation":{"@id":"x"},"invitation_url":1}`,
	`{"invitation":{"@id":"x","@ID":"y"},"invitation_url":"u"}`, `{"invitation":{"@id":"x"}`,
}

func FuzzReadAnswers(f *testing.F) {
	for _, s := range answerSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		px, ok := readPresEx(raw)
		var wantPx presEx
		wantErr := json.Unmarshal(raw, &wantPx)
		if ok != (wantErr == nil) || ok && px != wantPx {
			t.Fatalf("readPresEx(%q) = %+v, %v; encoding/json %+v, %v", raw, px, ok, wantPx, wantErr)
		}

		inv, ok := readInvitationRecord(raw)
		var wantInv invitationRecord
		wantErr = json.Unmarshal(raw, &wantInv)
		if ok != (wantErr == nil) || ok && (inv.InvitationURL != wantInv.InvitationURL || string(inv.Invitation) != string(wantInv.Invitation)) {
			t.Fatalf("readInvitationRecord(%q) = %+v, %v; encoding/json %+v, %v", raw, inv, ok, wantInv, wantErr)
		}
	})
}

// BenchmarkReadAnswers is what a create reads of ACA-Py's two answers: the
// presentation exchange record (normalized) and the invitation record with
// its invitation's id.
func BenchmarkReadAnswers(b *testing.B) {
	rec, invRec := []byte(samplePresEx), []byte(sampleInvitationRecord)
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		if _, err := normalize(rec); err != nil {
			b.Fatal(err)
		}
		inv, ok := readInvitationRecord(invRec)
		if _, idOK := agent.MessageID(inv.Invitation); !ok || !idOK {
			b.Fatal("invitation record not read")
		}
	}
}

// BenchmarkReadAnswersEncodingJSON is the same with encoding/json, as
// before jsonpick.
func BenchmarkReadAnswersEncodingJSON(b *testing.B) {
	rec, invRec := []byte(samplePresEx), []byte(sampleInvitationRecord)
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		var px presEx
		if json.Unmarshal(rec, &px) != nil {
			b.Fatal("record not read")
		}
		_ = credoTime(px.CreatedAt)
		_ = credoTime(px.UpdatedAt)
		var inv invitationRecord
		var msg struct {
			ID string `json:"@id"`
		}
		if json.Unmarshal(invRec, &inv) != nil || json.Unmarshal(inv.Invitation, &msg) != nil {
			b.Fatal("invitation record not read")
		}
	}
}

// credoTimeSlow is credoTime without its fast path: the reference.
func credoTimeSlow(s string) string {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC().Format(backend.TimeFormat)
		}
	}
	return s
}

func FuzzCredoTime(f *testing.F) {
	for _, s := range []string{
		"2026-01-02T03:04:05.678901Z", "2026-01-02 03:04:05.6Z", "2024-02-29T23:59:59.123456789012Z", "2023-02-29T00:00:00.1Z",
		"2026-13-02T03:04:05.678901Z", "2026-01-32T03:04:05.1Z", "2026-04-31T03:04:05.1Z", "2026-01-02T24:04:05.1Z",
		"2026-01-02T03:60:05.1Z", "2026-01-02T03:04:60.1Z", "2026-01-02T03:04:05.Z", "2026-01-02T03:04:05Z",
		"2026-01-02T03:04:05.678901+02:00", "2026-01-02T03:04:05,678Z", "0000-01-01T00:00:00.0Z", "1900-02-29T00:00:00.1Z",
		"2000-02-29T00:00:00.12Z", "+026-01-02T03:04:05.1Z", "2026-0a-02T03:04:05.1Z", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := credoTime(s), credoTimeSlow(s); got != want {
			t.Fatalf("credoTime(%q) = %q, time.Parse and Format give %q", s, got, want)
		}
	})
}
