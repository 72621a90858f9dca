package handlers

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
)

// TestWriteCreatedOne: the hand-made 201 is byte for byte what
// encoding/json makes of the same envelope, for plain and awkward strings
// and for the invitations the local verifier makes (compact, escaped).
func TestWriteCreatedOne(t *testing.T) {
	inv, _ := json.Marshal(map[string]any{"@id": "x", "label": "A & B <ok>", "services": []any{map[string]any{"serviceEndpoint": "https://v.example/didcomm?a=1&b=2"}}})
	for _, d := range []oobData{
		{ProofRecordID: "3fa85f64-5717-4562-b3fc-2c963f66afa6", ProofRecordThID: "t", OutOfBandID: "o", InvitationURL: "https://v.example/url/abc", LongInvitationURL: "https://v.example?oob=eyJ", Invitation: inv},
		{ProofRecordID: "r\"1\\", ProofRecordThID: "ünïcode", OutOfBandID: "<script>&", InvitationURL: "tab\there\u2028", LongInvitationURL: "\x01ctl", Invitation: inv},
		{},
	} {
		got := httptest.NewRecorder()
		writeCreatedOne(got, d)
		want := httptest.NewRecorder()
		writeCreated(want, d)
		if got.Body.String() != want.Body.String() || got.Code != want.Code {
			t.Errorf("got  %d %s\nwant %d %s", got.Code, got.Body, want.Code, want.Body)
		}
		for _, h := range []string{"Content-Type", "Content-Length", "Cache-Control", "X-Content-Type-Options"} {
			if got.Header().Get(h) != want.Header().Get(h) {
				t.Errorf("%s: %q, want %q", h, got.Header().Get(h), want.Header().Get(h))
			}
		}
	}
}
