package proofs

import (
	"bytes"
	"encoding/base64"
	"net/url"
	"testing"
)

// TestInvitationURLAsURLString: InvitationURL writes what url.URL.String()
// makes of base with oob added to its query, for awkward bases too, and
// whichever base came before (the parts are kept for the last one).
func TestInvitationURLAsURLString(t *testing.T) {
	var inv []byte
	reference := func(base string) (string, error) {
		u, err := url.Parse(base)
		if err != nil {
			return "", err
		}
		oob := "oob=" + base64.RawURLEncoding.EncodeToString(inv)
		if u.RawQuery == "" {
			u.RawQuery = oob
		} else {
			u.RawQuery += "&" + oob
		}
		u.ForceQuery = false
		return u.String(), nil
	}
	bases := []string{
		"https://v.example.com", "https://v.example.com/i?a=1&b=2#frag", "https://v.example.com/i#a%20b",
		"https://v.example.com/i#a b", "https://v.example.com/a b/c%2Fd?x=%zz", "https://user:pw@v.example.com:8443/",
		"https://v.example.com/i?#", "https://v.example.com/i?;x", "/relative/path", "a:b/c", "mailto:x@y", "//host/p",
		"https://[::1]:80/x", "https://v.example.com/i#%E2%80%A8", "",
	}
	// Small, and large enough to be encoded in several chunks (with a
	// partial group at the end).
	large := bytes.Repeat([]byte(`{"@id":"x","label":"ü?&=#"}`), 200)
	for _, inv = range [][]byte{[]byte(`{"@id":"x","label":"ü?&=#"}`), large, large[:767], large[:768], large[:769], {}} {
		for _, base := range bases {
			want, wantErr := reference(base)
			got, err := InvitationURL(base, inv)
			if (err != nil) != (wantErr != nil) || got != want {
				t.Errorf("InvitationURL(%q) = %q, %v; want %q, %v", base, got, err, want, wantErr)
			}
		}
	}
}
