package didcomm

import "strings"

// LegacyTypePrefix is the message type prefix agents used before RFC 0348
// moved to https://didcomm.org/; some still send it.
const LegacyTypePrefix = "did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/"

// TypePrefix is the current message type prefix.
const TypePrefix = "https://didcomm.org/"

// NormalizeType rewrites a legacy did:sov message type to its
// https://didcomm.org/ form, so callers compare one spelling.
func NormalizeType(t string) string {
	if rest, ok := strings.CutPrefix(t, LegacyTypePrefix); ok {
		return TypePrefix + rest
	}
	return t
}

// MessageType is a parsed https://didcomm.org/<protocol>/<version>/<name>.
type MessageType struct {
	Protocol string // "present-proof"
	Major    string // "2"
	Minor    string // "0"
	Name     string // "presentation"
}

// ParseType parses a (normalized) message type URI; ok is false for
// anything but https://didcomm.org/<protocol>/<major>.<minor>/<name>.
func ParseType(t string) (MessageType, bool) {
	rest, ok := strings.CutPrefix(NormalizeType(t), TypePrefix)
	if !ok {
		return MessageType{}, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || parts[0] == "" || parts[2] == "" {
		return MessageType{}, false
	}
	major, minor, ok := strings.Cut(parts[1], ".")
	if !ok || !digits(major) || !digits(minor) {
		return MessageType{}, false
	}
	return MessageType{Protocol: parts[0], Major: major, Minor: minor, Name: parts[2]}, true
}

func digits(s string) bool {
	if s == "" || len(s) > 4 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
