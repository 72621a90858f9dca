package credo

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/benchutil"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// Answers in credo-controller 2.1.3's shapes (shared/notes/interop.md),
// and variations the readers must treat exactly as encoding/json does.
const (
	sampleInvitation = `{"@type":"https://didcomm.org/out-of-band/1.1/invitation","@id":"5a0f5e8e-4e3c-4c2a-9a34-6c1f7c9f0d11",` +
		`"label":"Verifier","accept":["didcomm/aip1","didcomm/aip2;env=rfc19"],"handshake_protocols":["https://didcomm.org/didexchange/1.1"],` +
		`"services":["did:peer:2.Ez6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc.Vz6MkqRYqQiSgvZQdnBytw86Qbs2ZWUkGv22od935YF4s8M7V"],` +
		`"requests~attach":[{"@id":"request-0","mime-type":"application/json","data":{"base64":"eyJAdHlwZSI6Imh0dHBzOi8vZGlkY29tbS5vcmcvcHJlc2VudC1wcm9vZi8yLjAvcmVxdWVzdC1wcmVzZW50YXRpb24ifQ=="}}]}`
	sampleCreateAnswer = `{"invitationUrl":"https://verifier.example/?oob=eyJAdHlwZSI6Imh0dHBzOi8vZGlkY29tbS5vcmcvb3V0LW9mLWJhbmQvMS4xL2ludml0YXRpb24ifQ",` +
		`"invitation":` + sampleInvitation + `,"outOfBandRecord":{"id":"0b1c","state":"await-response","role":"sender","outOfBandInvitation":` + sampleInvitation + `},` +
		`"invitationDid":"did:peer:2.stub","proofRecordThId":"7e0b0a5c-2f0d-4d44-9a5f-0e5b6f5c2b11"}`
	sampleRecord = `{"_tags":{"state":"request-sent","threadId":"7e0b0a5c-2f0d-4d44-9a5f-0e5b6f5c2b11","role":"verifier"},` +
		`"metadata":{},"id":"2d6d3b5e-7a67-4a52-8d55-6cb0b3a1c9a2","createdAt":"2026-01-02T03:04:05.678Z","updatedAt":"2026-01-02T03:04:05.678Z",` +
		`"protocolVersion":"v2","state":"request-sent","role":"verifier","threadId":"7e0b0a5c-2f0d-4d44-9a5f-0e5b6f5c2b11","autoAcceptProof":"always"}`
)

var answerSeeds = []string{
	sampleCreateAnswer, sampleRecord, `[` + sampleRecord + `]`, `[` + sampleRecord + `,` + sampleRecord + `]`,
	`{"invitationUrl":"u","invitation":null,"proofRecordThId":"t"}`,
	`{"invitationUrl":5,"invitation":{"@id":"x"},"proofRecordThId":"t"}`,
	`{"invitationUrl":"u","invitation":{"@id":5},"proofRecordThId":"t"}`,
	`{"invitationUrl":"u","invitation":"x","proofRecordThId":"t"}`,
	`{"InvitationURL":"u","invitation":{"@ID":"x"},"proofRecordThId":"t"}`,
	`{"invitationUrl":"u\u0026v","invitation":{"@id":"x"},"proofRecordThId":"t","proofRecordThId":"s"}`,
	`{"id":"2d6d3b5e-7a67-4a52-8d55-6cb0b3a1c9a2","threadId":"t","state":"done","isVerified":true,"metadata":{"a":[1,{"b":null}]}}`,
	`{"id":"2d6d3b5e-7a67-4a52-8d55-6cb0b3a1c9a2","threadId":"t","state":"done","isVerified":"true"}`,
	`{"id":"2d6d3b5e-7a67-4a52-8d55-6cb0b3a1c9a2","threadId":"t","state":"done","metadata":{"a":1},"metadata":{"b":2}}`,
	`{"id":"2d6d3b5e-7a67-4a52-8d55-6cb0b3a1c9a2","threadId":"t","state":"done","metadata":5}`,
	`{"id":"2d6d3b5e-7a67-4a52-8d55-6cb0b3a1c9a2","threadId":"t","state":"done","metadata":null,"role":"prover"}`,
	`[1,null,"x",{"id":"x"},` + sampleRecord + `]`, `null`, `[]`, `{}`, `{"id":"2d6d3b5e-7a67-4a52-8d55-6cb0b3a1c9a2"`,
}

// normalizeWithEncodingJSON is normalize as it was before jsonpick: the
// reference the fast readers are held to.
func normalizeWithEncodingJSON(raw []byte) (backend.ProofRecord, error) {
	var rec backend.ProofRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return rec, errors.New("proof record is not a JSON object")
	}
	if _, err := uuid.Parse(rec.ID); err != nil {
		return rec, errors.New("proof record id is not a UUID")
	}
	if rec.ThreadID == "" || rec.State == "" {
		return rec, errors.New("proof record without threadId or state")
	}
	if rec.Metadata == nil {
		rec.Metadata = map[string]any{}
	}
	if rec.Role == "" {
		rec.Role = backend.RoleVerifier
	}
	return rec, nil
}

func FuzzReadRecord(f *testing.F) {
	for _, s := range answerSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := normalize(raw)
		want, wantErr := normalizeWithEncodingJSON(raw)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("normalize(%q): %v, encoding/json: %v", raw, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("normalize(%q) = %+v, encoding/json %+v", raw, got, want)
		}

		// The list: the first valid verifier record of the thread.
		const thid = "7e0b0a5c-2f0d-4d44-9a5f-0e5b6f5c2b11"
		rec, found, err := verifierRecord(raw, thid)
		var list []json.RawMessage
		wantErr = json.Unmarshal(raw, &list)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("verifierRecord(%q): %v, encoding/json: %v", raw, err, wantErr)
		}
		var wantRec backend.ProofRecord
		var wantFound bool
		for _, r := range list {
			if r, err := normalizeWithEncodingJSON(r); err == nil && r.ThreadID == thid && r.Role == backend.RoleVerifier {
				wantRec, wantFound = r, true
				break
			}
		}
		if found != wantFound || !reflect.DeepEqual(rec, wantRec) {
			t.Fatalf("verifierRecord(%q) = %+v, %v; encoding/json %+v, %v", raw, rec, found, wantRec, wantFound)
		}
	})
}

func FuzzReadCreateAnswer(f *testing.F) {
	for _, s := range answerSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := readCreateAnswer(body)
		var want createAnswer
		wantErr := json.Unmarshal(body, &want)
		if ok != (wantErr == nil) || got.ProofRecordThID != want.ProofRecordThID {
			t.Fatalf("readCreateAnswer(%q): %+v, %v; encoding/json %+v, %v", body, got, ok, want, wantErr)
		}
		if !ok {
			return // only the thread id is used
		}
		if got.InvitationURL != want.InvitationURL || string(got.Invitation) != string(want.Invitation) {
			t.Fatalf("readCreateAnswer(%q) = %+v; encoding/json %+v", body, got, want)
		}
		id, ok := agent.MessageID(got.Invitation)
		var msg struct {
			ID string `json:"@id"`
		}
		wantErr = json.Unmarshal(want.Invitation, &msg)
		if ok != (wantErr == nil) || ok && id != msg.ID {
			t.Fatalf("MessageID(%q) = %q, %v; encoding/json %q, %v", got.Invitation, id, ok, msg.ID, wantErr)
		}
	})
}

// BenchmarkReadAnswers is what a create reads of credo-controller's two
// answers: the create-request-oob answer with its invitation's id, and the
// record list by thread.
func BenchmarkReadAnswers(b *testing.B) {
	create, list := []byte(sampleCreateAnswer), []byte(`[`+sampleRecord+`]`)
	const thid = "7e0b0a5c-2f0d-4d44-9a5f-0e5b6f5c2b11"
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		ans, ok := readCreateAnswer(create)
		if _, idOK := agent.MessageID(ans.Invitation); !ok || !idOK {
			b.Fatal("create answer not read")
		}
		if _, found, err := verifierRecord(list, thid); !found || err != nil {
			b.Fatal("record not found")
		}
	}
}

// BenchmarkReadAnswersEncodingJSON is the same with encoding/json, as
// before jsonpick.
func BenchmarkReadAnswersEncodingJSON(b *testing.B) {
	create, list := []byte(sampleCreateAnswer), []byte(`[`+sampleRecord+`]`)
	const thid = "7e0b0a5c-2f0d-4d44-9a5f-0e5b6f5c2b11"
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		var ans createAnswer
		var inv struct {
			ID string `json:"@id"`
		}
		if json.Unmarshal(create, &ans) != nil || json.Unmarshal(ans.Invitation, &inv) != nil {
			b.Fatal("create answer not read")
		}
		var recs []json.RawMessage
		if json.Unmarshal(list, &recs) != nil {
			b.Fatal("list not read")
		}
		found := false
		for _, r := range recs {
			if rec, err := normalizeWithEncodingJSON(r); err == nil && rec.ThreadID == thid {
				found = true
				break
			}
		}
		if !found {
			b.Fatal("record not found")
		}
	}
}

func TestSampleAnswersRead(t *testing.T) {
	ans, ok := readCreateAnswer([]byte(sampleCreateAnswer))
	id, idOK := agent.MessageID(ans.Invitation)
	if !ok || !idOK || id != "5a0f5e8e-4e3c-4c2a-9a34-6c1f7c9f0d11" || !strings.HasPrefix(ans.InvitationURL, "https://") ||
		ans.ProofRecordThID != "7e0b0a5c-2f0d-4d44-9a5f-0e5b6f5c2b11" || string(ans.Invitation) != sampleInvitation {
		t.Fatalf("create answer read as %+v (%v), invitation id %q (%v)", ans, ok, id, idOK)
	}
}
