package proofs

import (
	"fmt"
	"slices"

	"github.com/proofgate/proofgate/internal/jsonenc"
)

// appendInvitation appends what marshal makes of inv, byte for byte
// (TestAppendInvitation holds it to that): encoding/json re-scanned the
// attached request (a json.RawMessage) one byte at a time, a sixth of a
// create's CPU. Keep it in step with Invitation and what it holds.
func appendInvitation(b []byte, inv *Invitation) ([]byte, error) {
	n := 512 + len(inv.Label) + len(inv.GoalCode) + len(inv.Goal)
	for _, a := range inv.Requests {
		n += 64 + len(a.Data.Base64) + len(a.Data.JSON)
	}
	b = slices.Grow(b, n)
	b = append(b, `{"@type":`...)
	b = jsonenc.AppendString(b, inv.Type, false)
	b = append(b, `,"@id":`...)
	b = jsonenc.AppendString(b, inv.ID, false)
	if inv.Label != "" {
		b = append(b, `,"label":`...)
		b = jsonenc.AppendString(b, inv.Label, false)
	}
	if inv.GoalCode != "" {
		b = append(b, `,"goal_code":`...)
		b = jsonenc.AppendString(b, inv.GoalCode, false)
	}
	if inv.Goal != "" {
		b = append(b, `,"goal":`...)
		b = jsonenc.AppendString(b, inv.Goal, false)
	}
	b = append(b, `,"accept":`...)
	b = appendStrings(b, inv.Accept)
	b = append(b, `,"requests~attach":`...)
	var err error
	if b, err = appendAttachments(b, inv.Requests); err != nil {
		return nil, err
	}
	b = append(b, `,"services":`...)
	b = jsonenc.AppendArray(b, inv.Services, appendService)
	if inv.Thread != nil {
		b = append(b, `,"~thread":`...)
		b = appendThread(b, inv.Thread)
	}
	return append(b, '}'), nil
}

// appendThread appends a ~thread decorator.
func appendThread(b []byte, t *Thread) []byte {
	b = append(b, '{')
	if t.ThID != "" {
		b = append(b, `"thid":`...)
		b = jsonenc.AppendString(b, t.ThID, false)
	}
	if t.PThID != "" {
		if t.ThID != "" {
			b = append(b, ',')
		}
		b = append(b, `"pthid":`...)
		b = jsonenc.AppendString(b, t.PThID, false)
	}
	return append(b, '}')
}

// appendAttachments appends a list of attachments (null for nil).
func appendAttachments(b []byte, list []Attachment) ([]byte, error) {
	if list == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i := range list {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendAttachment(b, &list[i]); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func appendAttachment(b []byte, a *Attachment) ([]byte, error) {
	b = append(b, `{"@id":`...)
	b = jsonenc.AppendString(b, a.ID, false)
	b = append(b, `,"mime-type":`...)
	b = jsonenc.AppendString(b, a.MimeType, false)
	b = append(b, `,"data":{`...)
	if a.Data.Base64 != "" {
		b = append(b, `"base64":`...)
		b = jsonenc.AppendString(b, a.Data.Base64, false)
	}
	if len(a.Data.JSON) > 0 {
		if a.Data.Base64 != "" {
			b = append(b, ',')
		}
		b = append(b, `"json":`...)
		var err error
		if b, err = jsonenc.AppendCompact(b, a.Data.JSON, false); err != nil {
			return nil, fmt.Errorf("json: error calling MarshalJSON for type json.RawMessage (attachment %s): %w", a.ID, err)
		}
	}
	return append(b, "}}"...), nil
}

// appendService appends one of an invitation's inline services.
func appendService(b []byte, s InlineService) []byte {
	b = append(b, `{"id":`...)
	b = jsonenc.AppendString(b, s.ID, false)
	b = append(b, `,"type":`...)
	b = jsonenc.AppendString(b, s.Type, false)
	b = append(b, `,"recipientKeys":`...)
	b = appendStrings(b, s.RecipientKeys)
	b = append(b, `,"routingKeys":`...)
	b = appendStrings(b, s.RoutingKeys)
	b = append(b, `,"serviceEndpoint":`...)
	b = jsonenc.AppendString(b, s.ServiceEndpoint, false)
	return append(b, '}')
}

// appendStrings appends a []string as encoding/json does: null for nil.
func appendStrings(b []byte, list []string) []byte {
	return jsonenc.AppendArray(b, list, appendString)
}

func appendString(b []byte, s string) []byte { return jsonenc.AppendString(b, s, false) }
