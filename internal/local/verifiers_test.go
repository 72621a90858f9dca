package local

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/proofgate/proofgate/internal/anoncreds/registry"
	"github.com/proofgate/proofgate/internal/verify/w3c"
)

func TestVerificationOptionsJSON(t *testing.T) {
	var l Local
	cfg := `{"public_url":"https://v.example","trusted_issuers":["did:web:*.example.com"],"holder_binding":"off","status_unknown":"accept","require_domain":true,"clock_skew":60000000000,"max_credentials":2}`
	if err := json.Unmarshal([]byte(cfg), &l); err != nil {
		t.Fatal(err)
	}
	if l.HolderBinding != "off" || !l.RequireDomain || len(l.TrustedIssuers) != 1 || l.MaxCredentials != 2 {
		t.Fatalf("options not read: %+v", l.Options)
	}
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	set, err := l.verifiers(nil)
	if err != nil {
		t.Fatal(err)
	}
	if set.For(w3c.Format) == nil {
		t.Fatal("no verifier for presentation exchange")
	}
}

func TestVerificationOptionsValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		o    w3c.Options
		want string
	}{
		"missing contexts dir": {w3c.Options{JSONLDContexts: "/nonexistent/contexts"}, "jsonld_contexts"},
		"bad trust pattern":    {w3c.Options{TrustedIssuers: []string{"issuer.example"}}, "trusted_issuers"},
		"bad holder binding":   {w3c.Options{HolderBinding: "sometimes"}, "holder_binding"},
		"bad resolver":         {w3c.Options{DIDResolver: "resolver"}, "did_resolver"},
		"resolver method name": {w3c.Options{DIDResolver: "https://r.example", DIDResolverMethods: []string{"did:ion"}}, "not a DID method name"},
		"method resolved here": {w3c.Options{DIDResolver: "https://r.example", DIDResolverMethods: []string{"ion", "web"}}, "did:web is resolved here"},
		"methods, no resolver": {w3c.Options{DIDResolverMethods: []string{"ion"}}, "without did_resolver"},
	} {
		t.Run(name, func(t *testing.T) {
			l := Local{PublicURL: "https://v.example", Options: tc.o}
			if err := l.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestProvisionBuildsVerifier(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	storage := `"storage":{"module":"file_system","root":` + mustQuote(filepath.Join(dir, "store")) + `}`

	var ok Local
	json.Unmarshal([]byte(`{"public_url":"https://v.example","jsonld_contexts":"../../testdata/acapy-ld/contexts",`+storage+`}`), &ok)
	if err := ok.Provision(ctx); err != nil {
		t.Fatalf("Provision with operator contexts: %v", err)
	}
	defer ok.Cleanup()

	// A contexts directory whose index is broken fails at provisioning,
	// naming the option.
	bad := filepath.Join(dir, "contexts")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "index.json"), []byte(`{"https://x.example/c": "missing.jsonld"}`), 0o644)
	var l Local
	json.Unmarshal([]byte(`{"public_url":"https://v.example","jsonld_contexts":`+mustQuote(bad)+`,`+storage+`}`), &l)
	if err := l.Provision(ctx); err == nil || !strings.Contains(err.Error(), "jsonld_contexts") {
		t.Fatalf("Provision with a broken index: %v", err)
	}
}

func mustQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A credential of an anoncreds_registry source written in plain text in
// the config is warned about at load, as every other secret is; one given
// as a placeholder, and headers that carry none, are not.
func TestRegistrySecretsWarnedWhenLiteral(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	warnLiteralRegistrySecrets(zap.New(core), &registry.Config{Sources: []registry.SourceConfig{
		{Type: "agent", Agent: "credo", URL: "http://127.0.0.1:8001", Token: "registry-token-in-clear"},
		{Type: "agent", Agent: "acapy", URL: "http://127.0.0.1:8021", APIKey: "{env.ACAPY_KEY}"},
		{Type: "http", URL: "https://r.example/{id}", Header: map[string]string{"Authorization": "Bearer abc", "Accept": "application/json"}},
	}})
	var got []string
	for _, e := range logs.All() {
		got = append(got, e.ContextMap()["secret"].(string))
	}
	want := []string{"anoncreds_registry source 1 token", "anoncreds_registry source 3 header Authorization"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("warned about %q, want %q", got, want)
	}
}
