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

// requiredBool reads a boolean that must be sent; name is its field.
func requiredBool(raw value, name string, c *collector) (bool, bool) {
	if !raw.present() {
		c.add(name, "is required (true or false)")
		return false, false
	}
	b, ok := raw.boolean()
	if !ok {
		c.add(name, "must be a boolean")
	}
	return b, ok
}

// optionalBool reads a boolean that may be absent or null.
func optionalBool(raw value, name string, c *collector) (bool, bool) {
	if raw.missing() {
		return false, false
	}
	b, ok := raw.boolean()
	if !ok {
		c.add(name, "must be a boolean")
	}
	return b, ok
}

// cappedString reads an optional string (absent or null = "") of at most
// limit characters.
func cappedString(raw value, name string, limit int, c *collector) string {
	if raw.missing() {
		return ""
	}
	s, ok := raw.str()
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
func label(raw value, c *collector) string {
	s := cappedString(raw, "label", maxLabelBytes, c)
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
func parentThreadID(raw value, c *collector) string {
	s := cappedString(raw, "parentThreadId", maxParentThreadID, c)
	if s == "" && raw.is(kindString) {
		c.add("parentThreadId", "must not be empty (omit the field when there is no parent thread)")
		return ""
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			c.add("parentThreadId", "must be a UUID or other printable ASCII without spaces")
			break
		}
	}
	return s
}

func autoAcceptProof(raw value, c *collector) string {
	switch {
	case raw.missing():
		return ""
	case raw.is(kindObject):
		if raw.len() == 0 {
			return "" // the interface types it "object" without a shape: {} = unset
		}
	case raw.is(kindString):
		t, _ := raw.str()
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
func (v *Validator) emails(arr value, c *collector) []string {
	if arr.missing() {
		return nil
	}
	if !arr.is(kindArray) {
		c.add("emailId", "must be an array of e-mail addresses")
		return nil
	}
	n := arr.len()
	if n == 0 {
		c.add("emailId", "must not be empty (omit the field to send no e-mail)")
		return nil
	}
	if n > v.maxRecipients {
		c.addf("emailId", "must list at most %d recipients", v.maxRecipients)
	}
	out := make([]string, 0, n)
	var seen seenSet
	for it := arr.elems(); it.next(); {
		i := it.index()
		p := emailIDPath.elem(i)
		s, ok := it.value().str()
		if !ok {
			c.at(&p, "must be a string")
			continue
		}
		if !bareAddress(s) {
			c.at(&p, "must be a bare e-mail address like name@example.com (no display name, no brackets)")
			continue
		}
		if !atDomainName(s) {
			c.at(&p, "must be at a domain name like example.com: not an address literal ([10.0.0.1]) nor a host of the mail server's own network (localhost)")
			continue
		}
		if first, dup := seen.add(strings.ToLower(s), i); dup {
			c.atf(&p, "duplicate of emailId[%d]", first)
			continue
		}
		out = append(out, s)
	}
	arr.d.probes += seen.probes
	return out
}

// emailIDPath is the path of emailId, whose elements are named by index.
var emailIDPath = staticPath(nil, "emailId")

// seenSet remembers strings of a request (the lower-cased addresses of
// emailId, the names of an attribute group, the referents of
// requested_attributes) with the index of their first occurrence: in a
// small array on the stack for the usual few, in a map past that, so that
// finding repeats costs the same per string however many there are.
type seenSet struct {
	small [smallSeen]struct {
		s string
		i int
	}
	n    int
	many map[string]int
	// probes counts the strings compared, for document.probes.
	probes int
}

const smallSeen = 8

// add records s at index i, or returns the index of its first
// occurrence.
func (set *seenSet) add(s string, i int) (first int, dup bool) {
	if first, dup := set.find(s); dup {
		return first, true
	}
	if set.many != nil {
		set.many[s] = i
		return 0, false
	}
	if set.n < smallSeen {
		set.small[set.n].s, set.small[set.n].i = s, i
		set.n++
		return 0, false
	}
	set.many = make(map[string]int, 2*smallSeen)
	for _, e := range set.small[:set.n] {
		set.many[e.s] = e.i
	}
	set.many[s] = i
	return 0, false
}

// find returns the index at which s was added.
func (set *seenSet) find(s string) (first int, found bool) {
	if set.many != nil {
		set.probes++
		first, found = set.many[s]
		return first, found
	}
	for _, e := range set.small[:set.n] {
		set.probes++
		if e.s == s {
			return e.i, true
		}
	}
	return 0, false
}

// bareAddress accepts what net/mail parses back to exactly the input, so
// "Name <a@b.c>", "<a@b.c>" and anything with CR/LF are refused. The
// common shape, an ASCII dot-atom on both sides of the @, is recognized
// without net/mail (which allocates for every address).
func bareAddress(s string) bool {
	if len(s) > maxEmailLength {
		return false
	}
	if simpleAddress(s) {
		return true
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s
}

// atDomainName reports whether a bare address's domain is a domain name:
// at least two labels, the last not all digits (a top-level label never
// is, RFC 1123 2.1 and RFC 3696 2, so root@10.0.0.1 names an IP address).
// Invitations go through the operator's mail relay, which would also
// deliver to an IP address (name@[10.0.0.1], name@10.0.0.1) or to a
// mailbox of its own host or network (root@localhost): an API caller
// could then reach hosts and mailboxes the operator never meant to mail.
func atDomainName(addr string) bool {
	at := strings.LastIndexByte(addr, '@')
	domain := strings.TrimSuffix(addr[at+1:], ".")
	dot := strings.LastIndexByte(domain, '.')
	if strings.HasPrefix(domain, "[") || dot < 0 {
		return false
	}
	tld := domain[dot+1:]
	return strings.Trim(tld, "0123456789") != ""
}

// integerValue is integer for a number of a parsed body.
func integerValue(raw value) (int64, bool) {
	if !raw.is(kindNumber) {
		return 0, false
	}
	return integerLiteral(raw.node().str)
}

// integer reads a JSON number that is mathematically an integer ("18",
// "18.0" and "1.8e1" alike, as JSON does not tell them apart) and fits in
// an int64 exactly.
func integer(raw any) (int64, bool) {
	n, ok := raw.(json.Number)
	if !ok {
		return 0, false
	}
	return integerLiteral(string(n))
}

// integerLiteral is integer for the text of a JSON number.
func integerLiteral(n string) (int64, bool) {
	if i, err := strconv.ParseInt(n, 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(n, 64)
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

// simpleAddress recognizes local@domain where both sides are dot-atoms of
// ASCII atext (RFC 5322 3.2.3): exactly the addresses net/mail parses as
// an addr-spec that consumes the whole input, so it returns them as they
// are with no display name. Anything else (quoted local parts, domain
// literals, comments, UTF-8) is left to net/mail.
func simpleAddress(s string) bool {
	local, domain, ok := strings.Cut(s, "@")
	return ok && dotAtom(local) && dotAtom(domain)
}

// dotAtom: one or more runs of ASCII atext separated by single dots.
func dotAtom(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch b := s[i]; b {
		case '.':
			if s[i-1] == '.' {
				return false
			}
		case '(', ')', '<', '>', '[', ']', ':', ';', '@', '\\', ',', '"':
			return false
		default:
			if b < 0x21 || b > 0x7e {
				return false
			}
		}
	}
	return true
}
