package local

import (
	"strings"
	"testing"
)

// TestCheckURLCredentialsNotInErrors: public_url and didcomm_endpoint
// with credentials (given as {env.*}, resolved by the time they are
// checked) are refused, and the refusal, which Caddy returns to the admin
// API caller and logs, names the URL without them.
func TestCheckURLCredentialsNotInErrors(t *testing.T) {
	const password = "verifier-basic-auth-s3cret"
	for _, tc := range []struct{ name, url, want string }{
		{"user and password", "https://proofgate:" + password + "@v.example.com/", `"https://xxxxx@v.example.com/" must not contain credentials`},
		{"user name only", "https://" + password + "@v.example.com/", `"https://xxxxx@v.example.com/" must not contain credentials`},
		{"other scheme", "ftp://proofgate:" + password + "@v.example.com/", `"ftp://xxxxx@v.example.com/": scheme must be http or https`},
		{"no host", "https://proofgate:" + password + "@/x", `"https://xxxxx@/x" has no host`},
		// The scheme forgotten: parsed as scheme "proofgate", opaque
		// "<password>@v.example.com/".
		{"no scheme", "proofgate:" + password + "@v.example.com/", `"proofgate:xxxxx": scheme must be http or https`},
		{"fragment", "https://proofgate:" + password + "@v.example.com/#x", `"https://xxxxx@v.example.com/#x" must not contain credentials`},
		// url.Parse's own error would quote it whole.
		{"unparsable", "https://proofgate:" + password + "@v.example.com:port/", "not a URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkURL(tc.url, "http", "https")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("checkURL: %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), password) {
				t.Errorf("the load error carries the credentials: %v", err)
			}
		})
	}
	if err := checkURL("https://v.example.com/", "http", "https"); err != nil {
		t.Errorf("a plain URL refused: %v", err)
	}
}
