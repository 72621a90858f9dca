package handlers

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// invitationInfo is what the invitation page shows of an RFC 0434
// invitation: who asks, and what for.
type invitationInfo struct {
	ID      string
	Label   string
	Comment string
}

// maxInvitationSize bounds what is decoded from a ?oob= parameter: a URL
// that still fits in a QR code is far smaller.
const maxInvitationSize = 64 << 10

var errNotInvitation = errors.New("not an out-of-band invitation")

// decodeOOBParam decodes the ?oob= value of a long invitation URL: the
// invitation JSON in base64url, padded or not (RFC 0434 asks for
// unpadded; some agents pad), or in standard base64 as some agents write it.
func decodeOOBParam(v string) ([]byte, error) {
	if len(v) > maxInvitationSize*4/3+4 {
		return nil, errNotInvitation
	}
	// Standard base64 in a query that was not percent-encoded: the query
	// parser read its '+' as a space, which is never base64.
	v = strings.ReplaceAll(strings.TrimRight(v, "="), " ", "+")
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.RawStdEncoding} {
		if b, err := enc.DecodeString(v); err == nil {
			return b, nil
		}
	}
	return nil, errNotInvitation
}

// parseInvitation reads the label, the id and the first attached request's
// comment of an out-of-band invitation.
func parseInvitation(raw []byte) (invitationInfo, error) {
	var inv struct {
		Type     string `json:"@type"`
		ID       string `json:"@id"`
		Label    string `json:"label"`
		Requests []struct {
			Data struct {
				Base64 string          `json:"base64"`
				JSON   json.RawMessage `json:"json"`
			} `json:"data"`
		} `json:"requests~attach"`
	}
	if len(raw) > maxInvitationSize || json.Unmarshal(raw, &inv) != nil || !isOOBInvitationType(inv.Type) {
		return invitationInfo{}, errNotInvitation
	}
	info := invitationInfo{ID: inv.ID, Label: inv.Label}
	if len(inv.Requests) > 0 {
		msg := []byte(inv.Requests[0].Data.JSON)
		if b64 := inv.Requests[0].Data.Base64; b64 != "" {
			msg = decodeAttachment(b64)
		}
		var req struct {
			Comment string `json:"comment"`
		}
		if json.Unmarshal(msg, &req) == nil {
			info.Comment = req.Comment
		}
	}
	return info, nil
}

// decodeAttachment decodes an attachment's data.base64: standard base64
// as RFC 0017 writes it, else base64url or unpadded standard base64, as
// some agents write it; nil when it is none of them.
func decodeAttachment(b64 string) []byte {
	if b, err := base64.StdEncoding.DecodeString(b64); err == nil {
		return b
	}
	b, err := decodeOOBParam(b64)
	if err != nil {
		return nil
	}
	return b
}

// isOOBInvitationType accepts the out-of-band invitation types of RFC 0434
// 1.x, in the https://didcomm.org/ and the legacy did:sov prefix.
func isOOBInvitationType(t string) bool {
	for _, prefix := range []string{"https://didcomm.org/out-of-band/1.", "did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/out-of-band/1."} {
		if rest, ok := strings.CutPrefix(t, prefix); ok {
			_, name, ok := strings.Cut(rest, "/")
			return ok && name == "invitation"
		}
	}
	return false
}

// didcommURL is the invitation as a didcomm:// link, which wallet apps
// register to open: didcomm://invite?oob=<base64url invitation>.
func didcommURL(invitation []byte) string {
	return "didcomm://invite?oob=" + base64.RawURLEncoding.EncodeToString(invitation)
}
