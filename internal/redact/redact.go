// Package redact hides what logs must not carry.
package redact

import (
	"net/url"
	"strings"
)

// Email hides the local part of an e-mail address: "***@example.com".
// Anything without an @ is returned as is.
func Email(s string) string {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return s
	}
	return "***" + s[at:]
}

// URL is u as errors and logs may show it: its userinfo masked whole
// (url.URL.Redacted keeps the user name, which can be a token by itself),
// and so is an opaque part ("user:password@host" with the scheme
// forgotten parses as scheme "user" and opaque "password@host"). Query
// strings are shown as they are: configured URLs keep credentials out of
// them (tokens, headers).
func URL(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User("xxxxx")
	}
	if c.Opaque != "" {
		c.Opaque = "xxxxx"
	}
	return c.String()
}
