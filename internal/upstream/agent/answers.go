package agent

import (
	"encoding/json"

	"github.com/proofgate/proofgate/internal/upstream/agent/jsonpick"
)

var messageIDName = []string{"@id"}

// MessageID returns the "@id" of a DIDComm message (an out-of-band
// invitation in an agent's answer) as encoding/json would decode raw into
// struct{ ID string `json:"@id"` }: ok is false where it would fail (raw
// empty or not JSON, not an object or null, "@id" not a string).
func MessageID(raw []byte) (id string, ok bool) {
	var vals [1][]byte
	odd, err := jsonpick.Object(raw, messageIDName, vals[:])
	switch {
	case err != nil:
		return "", false
	case odd:
		var msg struct {
			ID string `json:"@id"`
		}
		err := json.Unmarshal(raw, &msg)
		return msg.ID, err == nil
	}
	return jsonpick.String(vals[0])
}
