package credo

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/proofgate/proofgate/internal/upstream/agent"
)

func TestUnmarshalCaddyfile(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    string // JSON of the module, "" when an error is expected
		wantErr string
	}{
		{"inline url", `credo http://127.0.0.1:3000 {
			token {env.AGENT_TOKEN}
		}`, `{"url":"http://127.0.0.1:3000","token":"{env.AGENT_TOKEN}"}`, ""},
		{"every option", `credo {
			url https://agent.internal:8443/api
			token t0k
			routes legacy
			invitation_did did:peer:2.abc
			org_invitation_did 6b1e did:web:org.example
			timeout 5s
			max_response_size 1MiB
			owner_retention 90d
			transport http {
				tls_insecure_skip_verify
				dial_timeout 2s
			}
		}`, `{"url":"https://agent.internal:8443/api","timeout":5000000000,"max_response_size":1048576,` +
			`"transport":{"tls":{"insecure_skip_verify":true},"dial_timeout":2000000000},"owner_retention":7776000000000000,"token":"t0k","routes":"legacy",` +
			`"invitation_did":"did:peer:2.abc","org_invitation_dids":{"6b1e":"did:web:org.example"}}`, ""},
		{"tenants", `credo http://a:1 {
			token root
			tenant_token 9f2c {env.T1}
			tenant_token 77aa {file./run/t2}
		}`, `{"url":"http://a:1","tenant_tokens":{"77aa":"{file./run/t2}","9f2c":"{env.T1}"},"token":"root"}`, ""},
		{"unknown option", `credo { tokn x }`, "", `unknown credo backend option "tokn"`},
		{"bad routes", `credo { routes v3 }`, "", "routes: must be default or legacy"},
		{"api key", "credo http://a:1 {\napi_key {env.CREDO_API_KEY}\n}", `{"url":"http://a:1","api_key":"{env.CREDO_API_KEY}"}`, ""},
		{"token without value", "credo {\ntoken\n}", "", "wrong argument count"},
		{"extra argument", `credo { token a b }`, "", `token: unexpected argument "b"`},
		{"two inline urls", `credo http://a http://b`, "", "wrong argument count"},
		{"bad timeout", `credo { timeout soon }`, "", "timeout"},
		{"bad size", `credo { max_response_size lots }`, "", "max_response_size"},
		{"bad retention", `credo { owner_retention forever }`, "", "owner_retention"},
		// 0 in JSON is the option left out: written, it would have meant
		// the default silently.
		{"timeout 0", `credo { timeout 0 }`, "", "timeout: not a positive duration (leave the option out for the default)"},
		{"negative timeout", `credo { timeout -5s }`, "", "timeout: not a positive duration"},
		{"max_response_size 0", `credo { max_response_size 0 }`, "", "max_response_size: 0 is not a size"},
		{"owner_retention 0", `credo { owner_retention 0s }`, "", "owner_retention: not a positive duration"},
		{"tenant_token arity", "credo {\ntenant_token only-id\n}", "", "tenant_token: want <tenant id> <token>"},
		{"tenant_token twice", "credo {\ntenant_token a x\ntenant_token a y\n}", "", "given twice"},
		{"org_invitation_did arity", "credo {\norg_invitation_did org\n}", "", "org_invitation_did: want"},
		{"transport not http", `credo { transport fastcgi }`, "", "only http"},
		{"bad transport option", `credo { transport http { nonsense } }`, "", "nonsense"},
		// An option given twice is refused, not overwritten by the last:
		// a block naming two agents or two tokens is a mistake.
		{"url inline and in the block", "credo http://agent-a:1 {\nurl http://agent-b:2\ntoken t\n}", "", "cannot re-declare url"},
		{"url twice in the block", "credo {\nurl http://agent-a:1\nurl http://agent-b:2\n}", "", "cannot re-declare url"},
		{"token twice", "credo http://a:1 {\ntoken first\ntoken second\n}", "", "cannot re-declare token"},
		{"api_key twice", "credo http://a:1 {\napi_key first\napi_key second\n}", "", "cannot re-declare api_key"},
		{"routes twice", "credo http://a:1 {\nroutes legacy\nroutes default\n}", "", "cannot re-declare routes"},
		{"invitation_did twice", "credo http://a:1 {\ninvitation_did did:web:a\ninvitation_did did:web:b\n}", "", "cannot re-declare invitation_did"},
		{"timeout twice", "credo http://a:1 {\ntoken t\ntimeout 5s\ntimeout 50s\n}", "", "cannot re-declare timeout"},
		{"max_response_size twice", "credo http://a:1 {\nmax_response_size 1MiB\nmax_response_size 2MiB\n}", "", "cannot re-declare max_response_size"},
		{"owner_retention twice", "credo http://a:1 {\nowner_retention 90d\nowner_retention 30d\n}", "", "cannot re-declare owner_retention"},
		{"insecure_http twice", "credo http://a:1 {\ninsecure_http\ninsecure_http\n}", "", "cannot re-declare insecure_http"},
		{"transport twice", "credo http://a:1 {\ntransport http {\ndial_timeout 1s\n}\ntransport http {\ndial_timeout 2s\n}\n}", "", "cannot re-declare transport"},
		{"tenant_token for two tenants", "credo http://a:1 {\ntenant_token a x\ntenant_token b y\n}", `{"url":"http://a:1","tenant_tokens":{"a":"x","b":"y"}}`, ""},
		{"org_invitation_did for two orgs", "credo http://a:1 {\ntoken t\norg_invitation_did a did:web:a\norg_invitation_did b did:web:b\n}", `{"url":"http://a:1","token":"t","org_invitation_dids":{"a":"did:web:a","b":"did:web:b"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b Backend
			err := b.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(&b)
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		b       Backend
		wantErr string
	}{
		{"ok", Backend{Token: "t"}, ""},
		{"no token", Backend{}, "token or api_key: required"},
		{"api key instead", Backend{APIKey: "k"}, ""},
		{"token and api key", Backend{Token: "t", APIKey: "k"}, "give one"},
		{"api key in the legacy layout", Backend{APIKey: "k", Routes: "legacy"}, "no token endpoint"},
		{"tenant tokens instead", Backend{}, ""},
		{"bad routes", Backend{Token: "t", Routes: "new"}, "routes"},
		{"legacy with tenant tokens", Backend{Token: "t", Routes: "legacy"}, "tenant_token"},
		{"bad did", Backend{Token: "t", InvitationDID: "peer:2"}, "invitation_did"},
		{"bad org did", Backend{Token: "t", OrgInvitationDIDs: map[string]string{"o": "x"}}, "org_invitation_dids"},
		{"no url", Backend{Token: "t"}, "url: required"},
		{"ftp url", Backend{Token: "t"}, "scheme"},
		{"url with credentials", Backend{Token: "t"}, "credentials"},
		{"owner retention", Backend{Token: "t", Config: agent.Config{OwnerRetention: caddy.Duration(30 * 24 * time.Hour)}}, ""},
		{"owner retention too short", Backend{Token: "t", Config: agent.Config{OwnerRetention: caddy.Duration(time.Hour)}}, "owner_retention: 1h0m0s is shorter than the minimum, 2h0m0s"},
	}
	for i := range tests {
		tt := &tests[i]
		switch tt.name {
		case "no url":
		case "ftp url":
			tt.b.URL = "ftp://agent"
		case "url with credentials":
			tt.b.URL = "http://u:p@agent"
		default:
			tt.b.URL = "http://127.0.0.1:3000"
		}
		switch tt.name {
		case "tenant tokens instead", "legacy with tenant tokens":
			tt.b.TenantTokens = map[string]string{"t1": "x"}
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.b.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}
