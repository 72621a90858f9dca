package webhook

import (
	"strings"
	"testing"
)

// TestConfigURLCredentialsNotInErrors: a webhook URL with credentials
// (given as {env.*}, resolved by the time Validate runs) is refused, and
// the refusal, which Caddy returns to the admin API caller and logs,
// names the URL without them.
func TestConfigURLCredentialsNotInErrors(t *testing.T) {
	const password = "hook-basic-auth-s3cret"
	for _, tc := range []struct{ name, url, want string }{
		{"user and password", "https://proofgate:" + password + "@hooks.example.com/in", "webhook https://xxxxx@hooks.example.com/in: url: must not contain credentials"},
		{"user name only", "https://" + password + "@hooks.example.com/in", "webhook https://xxxxx@hooks.example.com/in: url: must not contain credentials"},
		{"other scheme", "ftp://proofgate:" + password + "@hooks.example.com/in", "webhook ftp://xxxxx@hooks.example.com/in: url: must be an absolute http(s) URL"},
		// The scheme forgotten: parsed as scheme "proofgate", opaque
		// "<password>@hooks.example.com/in".
		{"no scheme", "proofgate:" + password + "@hooks.example.com/in", "webhook proofgate:xxxxx: url: must be an absolute http(s) URL"},
		// An escape in the URL is no format verb of the error.
		{"escape", "ftp://hooks.example.com/a%2Fb", "webhook ftp://hooks.example.com/a%2Fb: url: must be an absolute http(s) URL"},
		// url.Parse's own error would quote it whole.
		{"unparsable", "https://proofgate:" + password + "@hooks.example.com:port/in", "webhook: url: not a valid URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{URL: tc.url, Secret: testSecret}
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate: %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), password) {
				t.Errorf("the load error carries the credentials: %v", err)
			}
		})
	}
}
