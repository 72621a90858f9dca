package acapy

import (
	"encoding/json"

	"github.com/proofgate/proofgate/internal/jsonpick"
)

// The agent's answers are read with jsonpick: one checking pass that picks
// the members proofgate uses, where encoding/json checked, decoded and
// copied everything (the invitation twice). Each reader returns what
// encoding/json would have decoded and whether it would have succeeded
// (FuzzReadAnswers), and falls back to it where jsonpick says the fast
// path cannot tell (Odd).

// presEx is what proofgate reads of ACA-Py's V20PresExRecord.
type presEx struct {
	PresExID     string `json:"pres_ex_id"`
	ConnectionID string `json:"connection_id"`
	ThreadID     string `json:"thread_id"`
	State        string `json:"state"`
	Role         string `json:"role"`
	Verified     string `json:"verified"`
	ErrorMsg     string `json:"error_msg"`
	CreatedAt    string `json:"created_at"`
	UpdatedAt    string `json:"updated_at"`
}

var presExNames = [...]string{
	"pres_ex_id", "connection_id", "thread_id", "state", "role", "verified", "error_msg", "created_at", "updated_at",
}

// readPresEx decodes a V20PresExRecord as json.Unmarshal(raw, &px) does;
// ok is false where that fails.
func readPresEx(raw []byte) (px presEx, ok bool) {
	var vals [len(presExNames)][]byte
	if picked, ok := jsonpick.Pick(raw, presExNames[:], vals[:], &px); !picked {
		return px, ok
	}
	ok = true
	for i, dst := range [...]*string{
		&px.PresExID, &px.ConnectionID, &px.ThreadID, &px.State, &px.Role, &px.Verified, &px.ErrorMsg, &px.CreatedAt, &px.UpdatedAt,
	} {
		var good bool
		if *dst, good = jsonpick.String(vals[i]); !good {
			ok = false
		}
	}
	return px, ok
}

// invitationRecord is what proofgate reads of ACA-Py's InvitationRecord.
type invitationRecord struct {
	Invitation    json.RawMessage `json:"invitation"`
	InvitationURL string          `json:"invitation_url"`
}

var invitationRecordNames = []string{"invitation", "invitation_url"}

// readInvitationRecord decodes a create-invitation answer as
// json.Unmarshal(body, &inv) does; ok is false where that fails.
// Invitation points into body.
func readInvitationRecord(body []byte) (inv invitationRecord, ok bool) {
	var vals [2][]byte
	if picked, ok := jsonpick.Pick(body, invitationRecordNames, vals[:], &inv); !picked {
		return inv, ok
	}
	inv.Invitation = vals[0]
	inv.InvitationURL, ok = jsonpick.String(vals[1])
	return inv, ok
}
