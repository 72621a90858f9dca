package integration

import (
	"net/http"
	"strings"
	"testing"
)

// A 401 says only "Unauthorized"; the reason is in Caddy's log at debug
// level, without the credential.
func TestUnauthorizedReasonLoggedAtDebug(t *testing.T) {
	tester := newTester(t)
	config := strings.Replace(globalOptions(t.TempDir()), "output "+testLogOutput, "output "+testLogOutput+"\n\t\tlevel DEBUG", 1) +
		proofgateSite("")
	tester.InitServer(config, "caddyfile")
	settle(t)
	unloadAtEnd(t)

	const wrongKey = "not-a-configured-key-0123456789"
	for _, tc := range []struct {
		name    string
		headers []string
		reason  string
		where   string
	}{
		{"none", nil, `"reason":"no credentials"`, `"presented":"none"`},
		{"unknown bearer key", []string{"Authorization: Bearer " + wrongKey}, `"reason":"unknown API key"`, `"presented":"Authorization Bearer"`},
		{"unknown X-API-Key", []string{"X-API-Key: " + wrongKey}, `"reason":"unknown API key"`, `"presented":"X-API-Key"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(testLogLines())
			r := do(t, http.MethodPost, oobPath(orgA, "indy"), indyBody, append(tc.headers, "Content-Type: application/json")...)
			wantBody(t, r, http.StatusUnauthorized, `{"statusCode":401,"error":"Unauthorized"}`)
			logged := testLogLines()[before:]
			var line string
			for l := range strings.SplitSeq(logged, "\n") {
				if strings.Contains(l, `"msg":"authentication failed"`) {
					line = l
				}
			}
			if line == "" {
				t.Fatalf("no authentication failed line in the log:\n%s", logged)
			}
			if !strings.Contains(line, tc.reason) || !strings.Contains(line, tc.where) || !strings.Contains(line, `"level":"debug"`) {
				t.Errorf("log line %s\nwant %s and %s at debug", line, tc.reason, tc.where)
			}
			if strings.Contains(logged, wrongKey) {
				t.Errorf("the log holds the credential:\n%s", logged)
			}
		})
	}
}
