package jwt

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestUnmarshalCaddyfile(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  Provider
		err   string
	}{
		{
			name: "full",
			input: `jwt {
				jwks_url https://idp.example.com/realms/x/protocol/openid-connect/certs
				key_file /etc/proofgate/a.pem
				key_file /etc/proofgate/b.jwk
				issuer https://idp.example.com/realms/x
				audience proofgate account
				algorithms RS256 ES256
				leeway 10s
				refresh_interval 1h
				min_refresh_interval 20s
				fetch_timeout 3s
				max_jwks_size 64KiB
				orgs_claim orgs list
				roles_claim realm_access.roles
			}`,
			want: Provider{
				JWKSURL:            "https://idp.example.com/realms/x/protocol/openid-connect/certs",
				KeyFiles:           []string{"/etc/proofgate/a.pem", "/etc/proofgate/b.jwk"},
				Issuer:             "https://idp.example.com/realms/x",
				Audience:           []string{"proofgate", "account"},
				Algorithms:         []string{"RS256", "ES256"},
				Leeway:             new(caddy.Duration(10 * time.Second)),
				RefreshInterval:    caddy.Duration(time.Hour),
				MinRefreshInterval: caddy.Duration(20 * time.Second),
				FetchTimeout:       caddy.Duration(3 * time.Second),
				MaxJWKSSize:        64 << 10,
				OrgsClaim:          "orgs",
				OrgsFormat:         FormatList,
				RolesClaim:         "realm_access.roles",
			},
		},
		{
			name:  "inline url",
			input: `jwt {env.JWKS}`,
			want:  Provider{JWKSURL: "{env.JWKS}"},
		},
		{
			name:  "claim without format",
			input: "jwt {\n key_file k.pem\n orgs_claim resource_access\n}",
			want:  Provider{KeyFiles: []string{"k.pem"}, OrgsClaim: "resource_access"},
		},
		{name: "unknown option", input: "jwt {\n jwks https://x\n}", err: `unknown option "jwks"`},
		{name: "duplicate", input: "jwt {\n issuer a\n issuer b\n}", err: "issuer given twice"},
		{name: "url twice", input: "jwt https://a {\n jwks_url https://b\n}", err: "jwks_url given twice"},
		{name: "two inline args", input: "jwt https://a https://b", err: "wrong argument count"},
		{name: "missing value", input: "jwt {\n issuer\n}", err: "wrong argument count"},
		{name: "extra value", input: "jwt {\n issuer a b\n}", err: "wrong argument count"},
		{name: "bad duration", input: "jwt {\n leeway soon\n}", err: `leeway "soon"`},
		{
			name:  "leeway 0 is none",
			input: "jwt {\n key_file k.pem\n leeway 0\n}",
			want:  Provider{KeyFiles: []string{"k.pem"}, Leeway: new(caddy.Duration(0))},
		},
		{name: "negative leeway", input: "jwt {\n leeway -1s\n}", err: `leeway "-1s": must not be negative`},
		// In JSON 0 is the option left out: written here, it would have
		// meant the default silently.
		{name: "refresh_interval 0", input: "jwt {\n refresh_interval 0\n}", err: `refresh_interval "0": not a positive duration`},
		{name: "min_refresh_interval 0", input: "jwt {\n min_refresh_interval 0s\n}", err: `min_refresh_interval "0s": not a positive duration`},
		{name: "fetch_timeout 0", input: "jwt {\n fetch_timeout 0\n}", err: `fetch_timeout "0": not a positive duration`},
		{name: "negative fetch_timeout", input: "jwt {\n fetch_timeout -5s\n}", err: `fetch_timeout "-5s": not a positive duration`},
		{name: "bad size", input: "jwt {\n max_jwks_size lots\n}", err: "max_jwks_size"},
		{name: "bad format", input: "jwt {\n orgs_claim orgs csv\n}", err: `format "csv"`},
		{name: "no algorithms", input: "jwt {\n algorithms\n}", err: "wrong argument count"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Provider
			err := p.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tc.input))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", p, tc.want)
			}
		})
	}
}
