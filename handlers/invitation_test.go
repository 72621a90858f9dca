package handlers

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestParseInvitationCommentOfAttachmentEncodings: the page shows the
// comment of the attached request whether its data.base64 is standard
// base64 (RFC 0017), base64url (padded or not) or unpadded standard
// base64, as agents write them; not when it is none of them.
func TestParseInvitationCommentOfAttachmentEncodings(t *testing.T) {
	const comment = "Are you over 18??? >>> yes"
	req := []byte(`{"comment":"` + comment + `"}`)
	for name, tc := range map[string]struct {
		b64, want string
	}{
		"standard":          {base64.StdEncoding.EncodeToString(req), comment},
		"base64url":         {base64.URLEncoding.EncodeToString(req), comment},
		"raw base64url":     {base64.RawURLEncoding.EncodeToString(req), comment},
		"unpadded standard": {base64.RawStdEncoding.EncodeToString(req), comment},
		"not base64":        {"!!!not base64!!!", ""},
	} {
		t.Run(name, func(t *testing.T) {
			if strings.HasPrefix(name, "base64url") || strings.HasPrefix(name, "raw") {
				if !strings.ContainsAny(tc.b64, "-_") {
					t.Fatalf("no URL-safe character in %s", tc.b64)
				}
			}
			inv := `{"@type":"https://didcomm.org/out-of-band/1.1/invitation","@id":"x","requests~attach":[{"data":{"base64":"` + tc.b64 + `"}}]}`
			info, err := parseInvitation([]byte(inv))
			if err != nil || info.Comment != tc.want {
				t.Fatalf("comment %q, %v; want %q", info.Comment, err, tc.want)
			}
		})
	}
}
