package validate

import (
	"encoding/json"
	"math"
	"net/mail"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Length caps, in characters, of the free-text fields. goalCode and
// parentThreadId are identifiers (RFC 0519 goal codes, thread ids); label
// is shown to the holder; comment is a message to the holder.
const (
	maxGoalCode = 128
	// maxLabelBytes caps label in bytes of UTF-8, not characters: the
	// label also goes into invitation e-mails, whose layer (internal/mail,
	// maxLabelLen) takes at most 200 bytes. Validation and mail agree, so
	// a label that passes here never fails in the mail layer.
	maxLabelBytes     = 200
	maxComment        = 4096
	maxParentThreadID = 128
	maxEmailLength    = 254 // RFC 5321 path limit
)

// Values of autoAcceptProof (Credo's AutoAcceptProof enum).
var autoAcceptValues = []string{"always", "contentApproved", "never"}

func requiredBool(obj map[string]any, name string, c *collector) (bool, bool) {
	raw, present := obj[name]
	if !present {
		c.add(name, "is required (true or false)")
		return false, false
	}
	b, ok := raw.(bool)
	if !ok {
		c.add(name, "must be a boolean")
	}
	return b, ok
}

// optionalBool reads a boolean that may be absent or null.
func optionalBool(obj map[string]any, name string, c *collector) (bool, bool) {
	raw := obj[name]
	if raw == nil {
		return false, false
	}
	b, ok := raw.(bool)
	if !ok {
		c.add(name, "must be a boolean")
	}
	return b, ok
}

// cappedString reads an optional string (absent or null = "") of at most
// limit characters.
func cappedString(obj map[string]any, name string, limit int, c *collector) string {
	raw := obj[name]
	if raw == nil {
		return ""
	}
	s, ok := raw.(string)
	if !ok {
		c.add(name, "must be a string")
		return ""
	}
	if utf8.RuneCountInString(s) > limit {
		c.addf(name, "must be at most %d characters", limit)
	}
	return s
}

// textRule says which characters a free-text field may hold.
type textRule int

const (
	// oneLine: no control characters at all (label, goalCode): they end up
	// in one-line places (mail text, logs, wallet UIs).
	oneLine textRule = iota
	// multiLine: line feeds and tabs allowed (comment, a message).
	multiLine
)

// checkText refuses what no client means to send and what a reader cannot
// see: control characters (NUL, CR, escape, C1), and the bidirectional
// embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069),
// with which a text displays differently from what it says. One message
// per field and problem.
func checkText(name, s string, rule textRule, c *collector) {
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			if rule == oneLine {
				c.add(name, "must be one line (no line breaks or tabs)")
				return
			}
		case r == utf8.RuneError:
			// Invalid UTF-8 cannot reach here (JSON decoding replaced it);
			// a literal U+FFFD is fine.
		case unicode.IsControl(r):
			c.addf(name, "must not contain control characters (found U+%04X)", r)
			return
		case (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069):
			c.addf(name, "must not contain bidirectional override or isolate characters (found U+%04X)", r)
			return
		}
	}
}

// label reads label: one line of at most maxLabelBytes bytes.
func label(obj map[string]any, c *collector) string {
	s := cappedString(obj, "label", maxLabelBytes, c)
	if len(s) > maxLabelBytes && utf8.RuneCountInString(s) <= maxLabelBytes {
		c.addf("label", "must be at most %d bytes of UTF-8 (%d here)", maxLabelBytes, len(s))
	}
	checkText("label", s, oneLine, c)
	return s
}

// parentThreadID reads parentThreadId: a thread id of another protocol,
// which Credo and ACA-Py make UUIDs but DIDComm allows any string; we take
// 1-128 printable ASCII characters without spaces, which covers UUIDs and
// every id format in use and keeps it safe to log and to put in ~thread.
func parentThreadID(obj map[string]any, c *collector) string {
	s := cappedString(obj, "parentThreadId", maxParentThreadID, c)
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			c.add("parentThreadId", "must be a UUID or other printable ASCII without spaces")
			break
		}
	}
	return s
}

func autoAcceptProof(obj map[string]any, c *collector) string {
	switch t := obj["autoAcceptProof"].(type) {
	case nil:
		return ""
	case map[string]any:
		if len(t) == 0 {
			return "" // the interface types it "object" without a shape: {} = unset
		}
	case string:
		for _, v := range autoAcceptValues {
			if t == v {
				return t
			}
		}
	}
	c.add("autoAcceptProof", `must be "always", "contentApproved" or "never" (or {} / null for the agent's default)`)
	return ""
}

// emails reads emailId: bare addresses, unique ignoring case, capped.
func (v *Validator) emails(raw any, c *collector) []string {
	if raw == nil {
		return nil
	}
	arr, ok := raw.([]any)
	if !ok {
		c.add("emailId", "must be an array of e-mail addresses")
		return nil
	}
	if len(arr) == 0 {
		c.add("emailId", "must not be empty (omit the field to send no e-mail)")
		return nil
	}
	if len(arr) > v.maxRecipients {
		c.addf("emailId", "must list at most %d recipients", v.maxRecipients)
	}
	out := make([]string, 0, len(arr))
	seen := make(map[string]int, len(arr))
	for i, item := range arr {
		p := index("emailId", i)
		s, ok := item.(string)
		if !ok {
			c.add(p, "must be a string")
			continue
		}
		if !bareAddress(s) {
			c.add(p, "must be a bare e-mail address like name@example.com (no display name, no brackets)")
			continue
		}
		fold := strings.ToLower(s)
		if first, dup := seen[fold]; dup {
			c.addf(p, "duplicate of emailId[%d]", first)
			continue
		}
		seen[fold] = i
		out = append(out, s)
	}
	return out
}

// bareAddress accepts what net/mail parses back to exactly the input, so
// "Name <a@b.c>", "<a@b.c>" and anything with CR/LF are refused.
func bareAddress(s string) bool {
	if len(s) > maxEmailLength {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s
}

// integer reads a JSON number that is mathematically an integer ("18",
// "18.0" and "1.8e1" alike, as JSON does not tell them apart) and fits in
// an int64 exactly.
func integer(raw any) (int64, bool) {
	n, ok := raw.(json.Number)
	if !ok {
		return 0, false
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// ProofRecordID checks operation 4.2's path parameter: a UUID in its
// canonical 36-character form, before any lookup.
func ProofRecordID(id string) error {
	if len(id) != 36 || uuid.Validate(id) != nil {
		return Errors{"proofRecordId: must be a UUID"}
	}
	return nil
}

// maxOrgID caps operation 4.1's path parameter; org ids are UUIDs in
// CREDEBL, but any short printable identifier is accepted.
const maxOrgID = 128

// OrgID checks operation 4.1's path parameter: 1 to 128 printable ASCII
// characters (it ends up in records, logs and agent calls).
func OrgID(id string) error {
	if id == "" || len(id) > maxOrgID {
		return Errors{"orgId: must be 1 to 128 characters"}
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return Errors{"orgId: must be printable ASCII without spaces"}
		}
	}
	return nil
}
