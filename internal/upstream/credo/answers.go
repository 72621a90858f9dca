package credo

import (
	"encoding/json"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/jsonpick"
)

// The agent's answers are read with jsonpick: one checking pass that picks
// the members proofgate uses, where encoding/json checked, decoded and
// copied everything (the invitation twice), which was a tenth of a
// create's CPU. Each reader returns what encoding/json would have decoded
// and whether it would have succeeded (FuzzReadCreateAnswer,
// FuzzReadRecord), and falls back to it where jsonpick says the fast path
// cannot tell (Odd).

// createAnswer is what proofgate reads of the create-request-oob answer.
type createAnswer struct {
	InvitationURL   string          `json:"invitationUrl"`
	Invitation      json.RawMessage `json:"invitation"`
	ProofRecordThID string          `json:"proofRecordThId"`
}

var createAnswerNames = []string{"invitationUrl", "invitation", "proofRecordThId"}

// readCreateAnswer decodes a create-request-oob answer as
// json.Unmarshal(body, &ans) does; ok is false where that fails, with
// what it decodes before failing (the thread id, for the orphan record).
// Invitation points into body.
func readCreateAnswer(body []byte) (ans createAnswer, ok bool) {
	var vals [3][]byte
	if picked, ok := jsonpick.Pick(body, createAnswerNames, vals[:], &ans); !picked {
		return ans, ok
	}
	var urlOK, thOK bool
	ans.InvitationURL, urlOK = jsonpick.String(vals[0])
	ans.Invitation = vals[1]
	ans.ProofRecordThID, thOK = jsonpick.String(vals[2])
	return ans, urlOK && thOK
}

// recordNames are the members of backend.ProofRecord, in readRecord's
// order.
var (
	recordNamesArray = [...]string{
		"metadata", "id", "createdAt", "updatedAt", "connectionId", "threadId", "parentThreadId",
		"protocolVersion", "state", "role", "isVerified", "errorMessage", "orgId", "autoAcceptProof",
	}
	recordNames = recordNamesArray[:]
)

// readRecord decodes a ProofExchangeRecord (raw, its members picked into
// vals by jsonpick with recordNames) as json.Unmarshal(raw, &rec) does; ok
// is false where that fails.
func readRecord(raw []byte, vals [][]byte, odd bool) (rec backend.ProofRecord, ok bool) {
	if odd {
		err := json.Unmarshal(raw, &rec)
		return rec, err == nil
	}
	ok = true
	str := func(i int, dst *string) {
		var good bool
		if *dst, good = jsonpick.String(vals[i]); !good {
			ok = false
		}
	}
	switch m := vals[0]; string(m) {
	case "", "null":
	case "{}":
		rec.Metadata = map[string]any{}
	default:
		if json.Unmarshal(m, &rec.Metadata) != nil {
			ok = false
		}
	}
	str(1, &rec.ID)
	str(2, &rec.CreatedAt)
	str(3, &rec.UpdatedAt)
	str(4, &rec.ConnectionID)
	str(5, &rec.ThreadID)
	str(6, &rec.ParentThreadID)
	str(7, &rec.ProtocolVersion)
	str(8, &rec.State)
	str(9, &rec.Role)
	var good bool
	if rec.IsVerified, good = jsonpick.BoolPtr(vals[10]); !good {
		ok = false
	}
	str(11, &rec.ErrorMessage)
	str(12, &rec.OrgID)
	str(13, &rec.AutoAcceptProof)
	return rec, ok
}
