// Package textcut shortens text for messages without splitting a UTF-8
// character. It has no mark for the cut: where a message shows one, the
// caller adds it (verify.Truncate, which marks it, is another helper).
package textcut

import "unicode/utf8"

// Prefix cuts s to at most n bytes, backing off to the start of the
// character the cut would split, so the result never ends in part of a
// character s holds whole. s is returned as it is when it fits.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
