package acapy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestUnmarshalCaddyfile(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    string
		wantErr string
	}{
		{"single tenant", `acapy http://127.0.0.1:8031 {
			api_key {env.ACAPY_KEY}
		}`, `{"url":"http://127.0.0.1:8031","api_key":"{env.ACAPY_KEY}"}`, ""},
		{"multitenant", `acapy {
			url https://acapy.internal
			api_key k
			fetch_wallet_tokens
			tenant_token 3f1c {file./run/w1}
			invitation_did public
			org_invitation_did 6b1e did:sov:WgWxqztrNooG92RXvxSTWv
			timeout 30s
		}`, `{"url":"https://acapy.internal","timeout":30000000000,"tenant_tokens":{"3f1c":"{file./run/w1}"},"api_key":"k",` +
			`"fetch_wallet_tokens":true,"invitation_did":"public","org_invitation_dids":{"6b1e":"did:sov:WgWxqztrNooG92RXvxSTWv"}}`, ""},
		{"unknown option", "acapy {\napikey k\n}", "", `unknown acapy backend option "apikey"`},
		{"api_key without value", "acapy {\napi_key\n}", "", "wrong argument count"},
		{"flag with argument", "acapy {\nfetch_wallet_tokens yes\n}", "", `fetch_wallet_tokens: unexpected argument "yes"`},
		{"org_invitation_did arity", "acapy {\norg_invitation_did a b c\n}", "", "org_invitation_did: want"},
		{"org twice", "acapy {\norg_invitation_did a public\norg_invitation_did a public\n}", "", "given twice"},
		{"url twice inline", "acapy http://a http://b", "", "wrong argument count"},
		// An option given twice is refused, not overwritten by the last.
		{"url inline and in the block", "acapy http://acapy-a:8031 {\nurl http://acapy-b:8031\n}", "", "cannot re-declare url"},
		{"api_key twice", "acapy http://a:1 {\napi_key first\napi_key second\n}", "", "cannot re-declare api_key"},
		{"invitation_did twice", "acapy http://a:1 {\ninvitation_did public\ninvitation_did did:sov:x\n}", "", "cannot re-declare invitation_did"},
		{"fetch_wallet_tokens twice", "acapy http://a:1 {\nfetch_wallet_tokens\nfetch_wallet_tokens\n}", "", "cannot re-declare fetch_wallet_tokens"},
		{"timeout twice", "acapy http://a:1 {\ntimeout 5s\ntimeout 50s\n}", "", "cannot re-declare timeout"},
		{"org_invitation_did for two orgs", "acapy http://a:1 {\norg_invitation_did a public\norg_invitation_did b public\n}", `{"url":"http://a:1","org_invitation_dids":{"a":"public","b":"public"}}`, ""},
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
	for _, tt := range []struct {
		name    string
		b       Backend
		wantErr string
	}{
		{"ok", Backend{InvitationDID: "public"}, ""},
		{"bad did", Backend{InvitationDID: "WgWxqztrNooG92RXvxSTWv"}, "invitation_did"},
		{"bad org did", Backend{OrgInvitationDIDs: map[string]string{"o": "x"}}, "org_invitation_dids o"},
		{"empty tenant token", Backend{}, "tenant_tokens"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.b.URL = "http://127.0.0.1:8031"
			if tt.name == "empty tenant token" {
				tt.b.TenantTokens = map[string]string{"w": ""}
			}
			err := tt.b.Validate()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestProvisionSecrets: placeholders in the url and secrets are resolved
// at load, and an https url gets TLS on the transport.
func TestProvisionSecrets(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PG_TEST_ACAPY_URL", "https://127.0.0.1:8031")
	t.Setenv("PG_TEST_WALLET_TOKEN", "wallet-token")
	b := &Backend{APIKey: "{file." + keyFile + "}", storage: &certmagic.FileStorage{Path: dir}}
	b.URL = "{env.PG_TEST_ACAPY_URL}"
	b.TenantTokens = map[string]string{"w1": "{env.PG_TEST_WALLET_TOKEN}"}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	if err := b.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	if b.APIKey != "from-file" || b.URL != "https://127.0.0.1:8031" || b.TenantTokens["w1"] != "wallet-token" {
		t.Errorf("unresolved: key %q url %q token %q", b.APIKey, b.URL, b.TenantTokens["w1"])
	}
	if b.Transport.TLS == nil || b.Transport.Transport.TLSClientConfig == nil {
		t.Errorf("https url without TLS transport")
	}

	missing := &Backend{storage: &certmagic.FileStorage{Path: dir}}
	missing.URL = "http://127.0.0.1:1"
	missing.TenantTokens = map[string]string{"w1": "{env.PG_TEST_UNSET_VARIABLE}"}
	if err := missing.Provision(ctx); err == nil || !strings.Contains(err.Error(), "PG_TEST_UNSET_VARIABLE") {
		t.Errorf("an unset secret placeholder must fail the load, naming it: %v", err)
	}

	// An API key that resolves to nothing is no key: the agent runs with
	// --admin-insecure-mode (examples/acapy.Caddyfile with the variable unset).
	insecure := &Backend{APIKey: "{env.PG_TEST_UNSET_VARIABLE}", storage: &certmagic.FileStorage{Path: dir}}
	insecure.URL = "http://127.0.0.1:1"
	if err := insecure.Provision(ctx); err != nil || insecure.APIKey != "" {
		t.Errorf("unset API key: %v, key %q; want no key", err, insecure.APIKey)
	}
	typo := &Backend{APIKey: "{evn.PG_TEST_UNSET_VARIABLE}", storage: &certmagic.FileStorage{Path: dir}}
	typo.URL = "http://127.0.0.1:1"
	if err := typo.Provision(ctx); err == nil {
		t.Errorf("an unknown placeholder in api_key must fail the load")
	}
}

// TestLiteralAPIKeyWarned: an admin api_key written literally in the
// config logs the plain-text warning once, naming the option and never
// the key, as every other secret does; one given as a placeholder, or
// none, logs nothing, except a placeholder that resolves to nothing (a
// mistyped variable would otherwise show only as every call refused).
func TestLiteralAPIKeyWarned(t *testing.T) {
	t.Setenv("PG_TEST_ACAPY_KEY", "key-from-env-0123456789")
	for _, tc := range []struct {
		configured, resolved string
		warning              string // "" none
	}{
		{"literal-admin-api-key-0123456789", "literal-admin-api-key-0123456789", "plain text"},
		{"{env.PG_TEST_ACAPY_KEY}", "key-from-env-0123456789", ""},
		{"{env.PG_TEST_UNSET_VARIABLE}", "", "resolves to nothing"},
		{"", "", ""},
	} {
		core, logs := observer.New(zap.WarnLevel)
		b := &Backend{APIKey: tc.configured}
		if err := b.resolveAPIKey(zap.New(core)); err != nil || b.APIKey != tc.resolved {
			t.Errorf("%q: key %q, %v; want %q", tc.configured, b.APIKey, err, tc.resolved)
		}
		want := 0
		if tc.warning != "" {
			want = 1
		}
		if logs.Len() != want {
			t.Fatalf("%q: %d warnings, want %d: %v", tc.configured, logs.Len(), want, logs.All())
		}
		for _, e := range logs.All() {
			if !strings.Contains(e.Message, tc.warning) {
				t.Errorf("%q: warning %q, want one about %s", tc.configured, e.Message, tc.warning)
			}
			if tc.warning == "plain text" && e.ContextMap()["secret"] != "api_key" {
				t.Errorf("%q: warning %v does not name the option", tc.configured, e.ContextMap())
			}
			for _, f := range e.Context {
				if tc.resolved != "" && strings.Contains(f.String, tc.resolved) {
					t.Errorf("%q: the warning shows the key", tc.configured)
				}
			}
		}
	}
}

// TestProvisionWarnsLiteralAPIKeyOnce: through the whole Provision, a
// literal api_key is warned about exactly once, beside the literal
// tenant_token. A caddy.Context without a config logs to stderr (a
// development logger per call), so stderr is what is read.
func TestProvisionWarnsLiteralAPIKeyOnce(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(&out, r); close(copied) }()
	stderr := os.Stderr
	os.Stderr = w
	b := &Backend{APIKey: "literal-admin-api-key-0123456789", storage: &certmagic.FileStorage{Path: t.TempDir()}}
	b.URL = "http://127.0.0.1:1"
	b.TenantTokens = map[string]string{"w1": "literal-tenant-token"}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	err = b.Provision(ctx)
	os.Stderr = stderr
	cancel()
	_ = w.Close()
	<-copied
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Cleanup() })
	count := func(secret string) (n int) {
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.Contains(line, "written in plain text") && strings.Contains(line, `"secret": "`+secret+`"`) {
				n++
			}
		}
		return n
	}
	if n := count("api_key"); n != 1 {
		t.Errorf("%d api_key warnings, want 1; log:\n%s", n, out.String())
	}
	if n := count("tenant_token w1"); n != 1 {
		t.Errorf("%d tenant_token warnings, want 1; log:\n%s", n, out.String())
	}
	if strings.Contains(out.String(), "literal-admin-api-key") {
		t.Error("the log shows the key")
	}
}
