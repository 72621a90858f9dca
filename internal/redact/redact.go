// Package redact hides what logs must not carry.
package redact

import "strings"

// Email hides the local part of an e-mail address: "***@example.com".
// Anything without an @ is returned as is.
func Email(s string) string {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return s
	}
	return "***" + s[at:]
}
