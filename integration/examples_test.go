package integration

import (
	"encoding/json"
	"log"
	"os"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
)

// The example Caddyfiles load as the README says: with their defaults, or
// with the variables they need set; and where a required variable is
// unset, Caddy's refusal names it (not "wrong argument count").
func TestExampleCaddyfiles(t *testing.T) {
	for _, tc := range []struct {
		file     string
		required map[string]string // variable → a value that loads
	}{
		{"Caddyfile", nil},
		{"basicauth.Caddyfile", nil},
		{"acapy.Caddyfile", nil}, // the API key is optional (--admin-insecure-mode)
		{"credo.Caddyfile", map[string]string{"PROOFGATE_AGENT_TOKEN": "agent-jwt"}},
		{"jwt.Caddyfile", map[string]string{
			"PROOFGATE_JWKS_URL": "https://idp.example.com/realms/x/protocol/openid-connect/certs",
			"PROOFGATE_ISSUER":   "https://idp.example.com/realms/x",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Setenv("PROOFGATE_DATA", t.TempDir())
			t.Setenv("PROOFGATE_ADDR", "http://127.0.0.1:0")
			for v, value := range tc.required {
				t.Setenv(v, value)
			}
			if err := validateExample(t, tc.file); err != nil {
				t.Fatalf("with its variables set: %v", err)
			}
			for v := range tc.required {
				t.Run("without "+v, func(t *testing.T) {
					t.Setenv(v, "")
					os.Unsetenv(v)
					err := validateExample(t, tc.file)
					if err == nil || !strings.Contains(err.Error(), v) {
						t.Fatalf("loading without %s: %v; want an error naming it", v, err)
					}
					if testing.Verbose() {
						t.Log(err)
					}
				})
			}
		})
	}
}

// validateExample adapts ../examples/<file> and provisions it, as
// `caddy run` would before starting (caddy.Validate starts no listener).
func validateExample(t *testing.T, file string) error {
	t.Helper()
	data, err := os.ReadFile("../examples/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return validateCaddyfile(t, "examples/"+file, data)
}

// validateCaddyfile adapts a Caddyfile and provisions it.
func validateCaddyfile(t *testing.T, filename string, data []byte) error {
	t.Helper()
	adapted, _, err := caddyconfig.GetAdapter("caddyfile").Adapt(data, map[string]any{"filename": filename})
	if err != nil {
		return err
	}
	var cfg caddy.Config
	if err := json.Unmarshal(adapted, &cfg); err != nil {
		t.Fatal(err)
	}
	// Provisioning sets up the config's logs, and Caddy's default logger
	// and the standard logger with them: keep both on the test's writer.
	if err := json.Unmarshal([]byte(testLogJSON), &cfg.Logging); err != nil {
		t.Fatal(err)
	}
	defer log.SetOutput(sinkWriter{})
	return caddy.Validate(&cfg)
}
