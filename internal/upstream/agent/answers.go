package agent

import (
	"github.com/proofgate/proofgate/internal/jsonpick"
)

var messageIDName = []string{"@id"}

// MessageID returns the "@id" of a DIDComm message (an out-of-band
// invitation in an agent's answer) as encoding/json would decode raw into
// struct{ ID string `json:"@id"` }: ok is false where it would fail (raw
// empty or not JSON, not an object or null, "@id" not a string).
func MessageID(raw []byte) (id string, ok bool) {
	var vals [1][]byte
	var msg struct {
		ID string `json:"@id"`
	}
	if picked, ok := jsonpick.Pick(raw, messageIDName, vals[:], &msg); !picked {
		return msg.ID, ok
	}
	return jsonpick.String(vals[0])
}
