package webhook

import (
	"time"

	"github.com/proofgate/proofgate/internal/backend"
)

// EventType is the type of every event proofgate sends.
const EventType = "proofgate.proof.state_changed"

// Event is the JSON body of a webhook message.
type Event struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	CreatedAt string `json:"createdAt"`
	Data      Data   `json:"data"`
}

// Data is an event's data.
type Data struct {
	ProofRecordID string `json:"proofRecordId"`
	ThreadID      string `json:"threadId"`
	OrgID         string `json:"orgId"`
	PreviousState string `json:"previousState"`
	State         string `json:"state"`
	// IsVerified is the record's isVerified: null until a verdict.
	IsVerified *bool `json:"isVerified"`
	// Record is the record's own JSON, with include_record.
	Record *backend.ProofRecord `json:"record,omitempty"`
}

// NewEvent describes change c, made at.
func NewEvent(c backend.StateChange, at time.Time, withRecord bool) Event {
	ev := Event{
		ID:        c.ID,
		Type:      EventType,
		CreatedAt: at.UTC().Format(backend.TimeFormat),
		Data: Data{
			ProofRecordID: c.Record.ID,
			ThreadID:      c.Record.ThreadID,
			OrgID:         c.Record.OrgID,
			PreviousState: c.PreviousState,
			State:         c.Record.State,
			IsVerified:    c.Record.IsVerified,
		},
	}
	if withRecord {
		rec := c.Record
		ev.Data.Record = &rec
	}
	return ev
}

// EventData is the data of the Caddy event of change c: the webhook
// event's data as a map.
func EventData(c backend.StateChange) map[string]any {
	var verified any
	if c.Record.IsVerified != nil {
		verified = *c.Record.IsVerified
	}
	return map[string]any{
		"id":            c.ID,
		"proofRecordId": c.Record.ID,
		"threadId":      c.Record.ThreadID,
		"orgId":         c.Record.OrgID,
		"previousState": c.PreviousState,
		"state":         c.Record.State,
		"isVerified":    verified,
	}
}
