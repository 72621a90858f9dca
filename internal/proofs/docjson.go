package proofs

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/store"
)

var _ store.JSONAppender = (*Doc)(nil)

// AppendJSON appends what json.Marshal makes of d, byte for byte
// (TestDocAppendJSON holds it to that), for store.Put: encoding/json spent
// most of a create's CPU re-scanning the request and the invitation
// (json.RawMessage) one byte at a time; store.AppendRaw checks and copies
// them in a tight loop. Keep it in step with Doc's fields.
func (d *Doc) AppendJSON(b []byte) ([]byte, error) {
	// One allocation for the usual document: escapes are rare.
	b = slices.Grow(b, 1024+len(d.Request)+len(d.Invitation)+len(d.InvitationURL)+len(d.Presentation)+len(d.Ack)+
		len(d.Record.ErrorMessage)+len(d.Record.ParentThreadID)+len(d.Record.OrgID))
	var err error
	b = append(b, `{"format":`...)
	b = strconv.AppendInt(b, int64(d.Format), 10)
	b = append(b, `,"record":`...)
	if b, err = appendRecord(b, &d.Record); err != nil {
		return nil, err
	}
	b = append(b, `,"requestType":`...)
	b = store.AppendString(b, string(d.RequestType))
	b = append(b, `,"request":`...)
	if b, err = appendRaw(b, "request", d.Request); err != nil {
		return nil, err
	}
	b = append(b, `,"nonce":`...)
	b = store.AppendString(b, d.Nonce)
	if d.Domain != "" {
		b = append(b, `,"domain":`...)
		b = store.AppendString(b, d.Domain)
	}
	b = append(b, `,"invitationId":`...)
	b = store.AppendString(b, d.InvitationID)
	b = append(b, `,"invitation":`...)
	if b, err = appendRaw(b, "invitation", d.Invitation); err != nil {
		return nil, err
	}
	b = append(b, `,"invitationUrl":`...)
	b = store.AppendString(b, d.InvitationURL)
	if d.ShortURLExpiresAt != "" {
		b = append(b, `,"shortUrlExpiresAt":`...)
		b = store.AppendString(b, d.ShortURLExpiresAt)
	}
	b = appendOptional(b, `,"endpoint":`, d.Endpoint)
	b = appendOptional(b, `,"policy":`, d.Policy)
	b = append(b, `,"key":{"kind":`...)
	b = store.AppendString(b, d.Key.Kind)
	b = append(b, `,"verkey":`...)
	b = store.AppendString(b, d.Key.Verkey)
	if len(d.Key.Seed) > 0 {
		b = append(b, `,"seed":"`...)
		b = base64.StdEncoding.AppendEncode(b, d.Key.Seed)
		b = append(b, '"')
	}
	if d.Key.SealedSeed != "" {
		b = append(b, `,"sealedSeed":`...)
		b = store.AppendString(b, d.Key.SealedSeed)
	}
	b = append(b, '}')
	if len(d.Presentation) > 0 {
		b = append(b, `,"presentation":`...)
		if b, err = appendRaw(b, "presentation", d.Presentation); err != nil {
			return nil, err
		}
	}
	if d.TheirService != nil {
		b = append(b, `,"theirService":`...)
		if b, err = appendMarshal(b, d.TheirService); err != nil {
			return nil, err
		}
	}
	if d.TheirVerkey != "" {
		b = append(b, `,"theirVerkey":`...)
		b = store.AppendString(b, d.TheirVerkey)
	}
	if len(d.Ack) > 0 {
		b = append(b, `,"ack":`...)
		if b, err = appendRaw(b, "ack", d.Ack); err != nil {
			return nil, err
		}
	}
	if len(d.States) > 0 {
		b = append(b, `,"states":[`...)
		for i, s := range d.States {
			if i > 0 {
				b = append(b, ',')
			}
			b = store.AppendString(b, s)
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

func appendRecord(b []byte, r *backend.ProofRecord) ([]byte, error) {
	b = append(b, `{"metadata":`...)
	switch {
	case r.Metadata == nil:
		b = append(b, "null"...)
	case len(r.Metadata) == 0:
		b = append(b, "{}"...)
	default:
		var err error
		if b, err = appendMarshal(b, r.Metadata); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"id":`...)
	b = store.AppendString(b, r.ID)
	b = append(b, `,"createdAt":`...)
	b = store.AppendString(b, r.CreatedAt)
	b = appendOptional(b, `,"updatedAt":`, r.UpdatedAt)
	b = appendOptional(b, `,"connectionId":`, r.ConnectionID)
	b = append(b, `,"threadId":`...)
	b = store.AppendString(b, r.ThreadID)
	b = appendOptional(b, `,"parentThreadId":`, r.ParentThreadID)
	b = append(b, `,"protocolVersion":`...)
	b = store.AppendString(b, r.ProtocolVersion)
	b = append(b, `,"state":`...)
	b = store.AppendString(b, r.State)
	b = append(b, `,"role":`...)
	b = store.AppendString(b, r.Role)
	if r.IsVerified != nil {
		b = append(b, `,"isVerified":`...)
		b = strconv.AppendBool(b, *r.IsVerified)
	}
	b = appendOptional(b, `,"errorMessage":`, r.ErrorMessage)
	b = appendOptional(b, `,"orgId":`, r.OrgID)
	b = appendOptional(b, `,"autoAcceptProof":`, r.AutoAcceptProof)
	return append(b, '}'), nil
}

// appendOptional appends a string member tagged omitempty.
func appendOptional(b []byte, member, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, member...)
	return store.AppendString(b, s)
}

// appendRaw appends a json.RawMessage member's value, failing as
// json.Marshal would on one that is not JSON.
func appendRaw(b []byte, field string, raw json.RawMessage) ([]byte, error) {
	out, err := store.AppendRaw(b, raw)
	if err != nil {
		return nil, fmt.Errorf("json: error calling MarshalJSON for type json.RawMessage (%s): %w", field, err)
	}
	return out, nil
}

// appendMarshal appends what json.Marshal makes of v, for the members
// that are rare or small enough to leave to it.
func appendMarshal(b []byte, v any) ([]byte, error) {
	enc, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}
