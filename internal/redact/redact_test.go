package redact

import (
	"net/url"
	"strings"
	"testing"
)

func TestEmail(t *testing.T) {
	for in, want := range map[string]string{
		"alice@example.com":          "***@example.com",
		"a@b@example.com":            "***@example.com",
		"org-without-at":             "org-without-at",
		"":                           "",
		"@example.com":               "***@example.com",
		"\"quoted local\"@mail.test": "***@mail.test",
	} {
		if got := Email(in); got != want {
			t.Errorf("Email(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://idp.example.com/jwks":             "https://idp.example.com/jwks",
		"https://user:s3cret@idp.example.com/jwks": "https://xxxxx@idp.example.com/jwks",
		"https://tok3n@idp.example.com/jwks?a=1":   "https://xxxxx@idp.example.com/jwks?a=1",
		"user:s3cret@idp.example.com/jwks":         "user:xxxxx",
		"http://[::1]:8080/hook":                   "http://[::1]:8080/hook",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := URL(u); got != want {
			t.Errorf("URL(%q) = %q, want %q", raw, got, want)
		}
		if strings.Contains(URL(u), "s3cret") || strings.Contains(URL(u), "tok3n") {
			t.Errorf("URL(%q) shows the credential", raw)
		}
	}
}
