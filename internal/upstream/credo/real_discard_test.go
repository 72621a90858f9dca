package credo

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	credoenv "github.com/proofgate/proofgate/internal/testenv/credo"
)

// realDiscard is one line of holder/discard.js: a real Credo 0.5.19
// verifier's record of an out-of-band request after a real Credo holder
// received its invitation, and what the holder got to.
type realDiscard struct {
	Case string `json:"case"`
	// InvitationID is the invitation's @id, OutOfBandRecord the
	// verifier's record of it as credo-controller's GET /didcomm/oob
	// lists it (toJSON).
	InvitationID         string          `json:"invitationId"`
	OutOfBandRecord      json.RawMessage `json:"outOfBandRecord"`
	VerifierState        string          `json:"verifierState"`
	PresentationReceived bool            `json:"presentationReceived"`
	// "" for null: the holder has no record, no connection, no error.
	HolderState           string `json:"holderState"`
	HolderConnectionState string `json:"holderConnectionState"`
	Error                 string `json:"error"`
}

// TestRealCredoDiscardedInvitation pins what DiscardRecord relies on
// against a real Credo verifier (discard.js: verifier and holder over
// loopback DIDComm, the request made as credo-controller's
// create-request-oob makes it): once the invitation's out-of-band record
// is deleted (agent.oob.deleteById, credo-controller's DELETE
// /didcomm/oob/{outOfBandId}), no presentation reaches the request, while
// one does when it is kept. Both ways a holder answers: with a new
// connection (Credo's DID exchange finds no invitation), and over one it
// already has from the verifier's invitationDid, where the holder does
// send its presentation and the verifier refuses it (it matches an answer
// to an out-of-band request through that record). It also pins the list
// answer DiscardRecord reads: the real record is found by its invitation
// (invitationRecords), and the fake credo-controller's has its shape.
// Skips with one line when the Credo holder install is missing
// (internal/testenv/credo).
func TestRealCredoDiscardedInvitation(t *testing.T) {
	out := credoenv.RunScript(t, "discard.js")
	got := map[string]realDiscard{}
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var r realDiscard
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("discard.js printed %q: %v", line, err)
		}
		got[r.Case] = r
	}
	fakeShape := fakeOOBRecordShape(t)
	for _, tt := range []struct {
		name      string
		discarded bool
		// holderAnswered: the holder sent its presentation (the
		// refusal is then the verifier's, not a holder that never got
		// the request).
		holderAnswered bool
	}{
		{name: "kept", holderAnswered: true},
		{name: "discarded", discarded: true},
		{name: "kept-reused", holderAnswered: true},
		{name: "discarded-reused", discarded: true, holderAnswered: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := got[tt.name]
			if !ok {
				t.Fatalf("no %q case in discard.js's output:\n%s", tt.name, out)
			}
			t.Logf("verifier's record %s (a presentation received: %v); holder's %q, its connection %q",
				r.VerifierState, r.PresentationReceived, r.HolderState, r.HolderConnectionState)
			if r.Error != "" {
				t.Errorf("the holder failed: %s", r.Error)
			}
			want, wantReceived := "presentation-received", true
			if tt.discarded {
				want, wantReceived = "request-sent", false
			}
			if r.VerifierState != want || r.PresentationReceived != wantReceived {
				t.Errorf("verifier's record %s, a presentation received: %v; want %s, %v", r.VerifierState, r.PresentationReceived, want, wantReceived)
			}
			if answered := r.HolderState == "presentation-sent"; answered != tt.holderAnswered {
				t.Errorf("the holder's record: %q, want it to have sent its presentation: %v", r.HolderState, tt.holderAnswered)
			}

			var rec struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(r.OutOfBandRecord, &rec); err != nil || rec.ID == "" {
				t.Fatalf("out-of-band record %s: %v", r.OutOfBandRecord, err)
			}
			list := []byte("[" + string(r.OutOfBandRecord) + "]")
			if ids, ok := invitationRecords(list, r.InvitationID); !ok || !slices.Equal(ids, []string{rec.ID}) {
				t.Errorf("invitationRecords found %v, %v in the real list; want [%s]", ids, ok, rec.ID)
			}
			if shape := oobRecordShape(t, r.OutOfBandRecord); !slices.Equal(shape, fakeShape) {
				t.Errorf("the fake's out-of-band record has members %v, the real one %v", fakeShape, shape)
			}
		})
	}
}

// oobRecordShape is an out-of-band record's members, sorted.
func oobRecordShape(t *testing.T, raw []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("out-of-band record %s: %v", raw, err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// fakeOOBRecordShape is oobRecordShape of the record the fake
// credo-controller lists for a create's invitation.
func fakeOOBRecordShape(t *testing.T) []string {
	t.Helper()
	fake, res := fakePECreate(t)
	raw := fakeGet(t, fake, "/didcomm/oob?invitationId="+res.OutOfBandID)
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil || len(list) != 1 {
		t.Fatalf("fake out-of-band list: %s", raw)
	}
	if !strings.Contains(string(list[0]), res.OutOfBandID) {
		t.Fatalf("the fake lists %s for invitation %s", list[0], res.OutOfBandID)
	}
	return oobRecordShape(t, list[0])
}
