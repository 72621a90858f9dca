package redact

import "testing"

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
