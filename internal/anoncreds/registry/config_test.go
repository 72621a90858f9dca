package registry

import (
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestCaddyfile(t *testing.T) {
	in := `anoncreds_registry {
		files /etc/proofgate/anoncreds
		agent credo http://127.0.0.1:8001 {
			token {env.AGENT_TOKEN}
		}
		agent acapy http://127.0.0.1:8031 {
			api_key {env.ACAPY_KEY}
		}
		http https://resolver.example.com/1.0/{kind}/{id} {
			header Authorization "Bearer {env.RESOLVER_TOKEN}"
		}
		cache_ttl 5m
		revocation_unchecked accept
	}`
	var c Config
	d := caddyfile.NewTestDispenser(in)
	d.Next()
	if err := c.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	if len(c.Sources) != 4 || c.Sources[0].Dir != "/etc/proofgate/anoncreds" ||
		c.Sources[1].Agent != "credo" || c.Sources[1].Token != "{env.AGENT_TOKEN}" ||
		c.Sources[2].APIKey != "{env.ACAPY_KEY}" || c.Sources[3].Header["Authorization"] != "Bearer {env.RESOLVER_TOKEN}" ||
		time.Duration(c.CacheTTL) != 5*time.Minute || !c.AcceptUncheckedRevocation() {
		t.Fatalf("%+v", c)
	}

	for bad, want := range map[string]string{
		"anoncreds_registry x":                                       "takes no arguments",
		"anoncreds_registry {\nfiles\n}":                             "wrong argument count",
		"anoncreds_registry {\nagent credo\n}":                       "agent credo|acapy <url>",
		"anoncreds_registry {\nagent vcx http://x\n}":                "credo or acapy",
		"anoncreds_registry {\nagent credo ftp://x\n}":               "not an absolute http(s) URL",
		"anoncreds_registry {\nhttp https://r.example/x\n}":          "no {id}",
		"anoncreds_registry {\ncache_ttl soon\n}":                    "cache_ttl",
		"anoncreds_registry {\nrevocation_unchecked maybe\n}":        "accept or refuse",
		"anoncreds_registry {\nmirror http://x\n}":                   "unknown option",
		"anoncreds_registry {\nagent credo http://x {\npin 1\n}\n}":  "unknown option",
		"anoncreds_registry {\nhttp https://r/{id} {\ntoken x\n}\n}": "unknown option",
		// An option given twice would silently replace the first.
		"anoncreds_registry {\nrevocation_unchecked accept\nrevocation_unchecked refuse\n}": "cannot re-declare revocation_unchecked",
		"anoncreds_registry {\ncache_ttl 5m\ncache_ttl 1h\n}":                               "cannot re-declare cache_ttl",
		"anoncreds_registry {\nagent credo http://x {\ntoken a\ntoken b\n}\n}":              "one token or api_key",
		"anoncreds_registry {\nagent acapy http://x {\napi_key a\ntoken b\n}\n}":            "one token or api_key",
		"anoncreds_registry {\nhttp https://r/{id} {\nheader X-Key a\nheader x-key b\n}\n}": "header x-key given twice",
	} {
		var c Config
		d := caddyfile.NewTestDispenser(bad)
		d.Next()
		if err := c.UnmarshalCaddyfile(d); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", bad, err, want)
		}
	}
}

func TestBuild(t *testing.T) {
	t.Setenv("PG_TEST_TOKEN", "secret")
	c := &Config{Sources: []SourceConfig{
		{Type: "files", Dir: corpusRegistry},
		{Type: "agent", Agent: "credo", URL: "http://127.0.0.1:1", Token: "{env.PG_TEST_TOKEN}"},
	}}
	// The corpus registry is a files directory.
	if _, err := c.Build(caddy.NewReplacer()); err != nil {
		t.Fatalf("Build: %v", err)
	}
	c.Sources[0].Dir = t.TempDir() + "/missing"
	if _, err := c.Build(caddy.NewReplacer()); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("Build of a missing directory: %v", err)
	}
	c.Sources[0].Dir = t.TempDir()
	r, err := c.Build(caddy.NewReplacer())
	if err != nil {
		t.Fatal(err)
	}
	if a := r.sources[1].(*Agent); a.header.Get("Authorization") != "secret" {
		t.Fatalf("placeholder not resolved: %v", a.header)
	}
	if c.Sources[1].Token != "{env.PG_TEST_TOKEN}" {
		t.Fatal("the config (and its dump) now holds the secret")
	}
	var nilConfig *Config
	if r, err := nilConfig.Build(caddy.NewReplacer()); err != nil || len(r.sources) != 0 || nilConfig.AcceptUncheckedRevocation() {
		t.Fatal("no block: no sources expected")
	}
}

// TestBuildUnresolvedSecrets: a source's credential or URL whose
// placeholder resolves to nothing fails the load, naming it, as every
// other secret does. It used to send no credential (or "Bearer "), so
// that every lookup failed, and only at the first presentation.
func TestBuildUnresolvedSecrets(t *testing.T) {
	for _, tt := range []struct {
		name string
		src  SourceConfig
		want string
	}{
		{"agent token", SourceConfig{Type: "agent", Agent: "credo", URL: "http://127.0.0.1:1", Token: "{env.PG_TEST_UNSET}"}, "token"},
		{"agent api_key", SourceConfig{Type: "agent", Agent: "acapy", URL: "http://127.0.0.1:1", APIKey: "{env.PG_TEST_UNSET}"}, "api_key"},
		{"agent url", SourceConfig{Type: "agent", Agent: "acapy", URL: "{env.PG_TEST_UNSET}"}, "url"},
		{"http header", SourceConfig{Type: "http", URL: "https://registry.example/{id}", Header: map[string]string{"Authorization": "Bearer {env.PG_TEST_UNSET}"}}, "header Authorization"},
		{"files dir", SourceConfig{Type: "files", Dir: "{env.PG_TEST_UNSET}"}, "dir"},
		{"http url", SourceConfig{Type: "http", URL: "https://registry.example/{env.PG_TEST_UNSET}/{id}"}, "url: evaluated placeholder {env.PG_TEST_UNSET} is empty"},
		{"http url host", SourceConfig{Type: "http", URL: "https://{env.PG_TEST_UNSET}/{kind}/{id}"}, "url: evaluated placeholder {env.PG_TEST_UNSET} is empty"},
	} {
		c := &Config{Sources: []SourceConfig{tt.src}}
		if _, err := c.Build(caddy.NewReplacer()); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want the load to fail naming %q", tt.name, err, tt.want)
		}
	}
}

// TestBuildResolvesURLPlaceholders: the url of an agent or http source is
// resolved at load like the source's other values (it used to be refused
// when the placeholder was its host, or sent as written), an http
// template's own {id} and {kind} left for each lookup.
func TestBuildResolvesURLPlaceholders(t *testing.T) {
	t.Setenv("PG_TEST_RESOLVER", "https://resolver.example.com")
	t.Setenv("PG_TEST_TENANT", "tenant-1")
	t.Setenv("PG_TEST_AGENT", "http://127.0.0.1:8001")
	in := `anoncreds_registry {
		agent credo {env.PG_TEST_AGENT}
		http {env.PG_TEST_RESOLVER}/{env.PG_TEST_TENANT}/{kind}/{id}
	}`
	var c Config
	d := caddyfile.NewTestDispenser(in)
	d.Next()
	if err := c.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	r, err := c.Build(caddy.NewReplacer())
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"agent credo http://127.0.0.1:8001", "http https://resolver.example.com/tenant-1/{kind}/{id}"} {
		if got := r.sources[i].Name(); got != want {
			t.Errorf("source %d: %q, want %q", i+1, got, want)
		}
	}
}

// TestSourceURLCredentials: a source URL with userinfo is refused, written
// or resolved (sources are named by their URL in errors and logs), and a
// refusal of a resolved URL does not quote its value.
func TestSourceURLCredentials(t *testing.T) {
	const password = "registry-s3cret"
	t.Setenv("PG_TEST_CRED_URL", "https://proofgate:"+password+"@resolver.example.com")
	t.Setenv("PG_TEST_BAD_URL", "ftp://proofgate:"+password+"@resolver.example.com")
	for _, tt := range []struct {
		name string
		src  SourceConfig
		want string
	}{
		{"http written", SourceConfig{Type: "http", URL: "https://u:" + password + "@resolver.example.com/{id}"}, "must not contain credentials"},
		{"agent written", SourceConfig{Type: "agent", Agent: "credo", URL: "http://u:" + password + "@127.0.0.1:1"}, "must not contain credentials"},
		{"http resolved", SourceConfig{Type: "http", URL: "{env.PG_TEST_CRED_URL}/{id}"}, "must not contain credentials"},
		{"agent resolved", SourceConfig{Type: "agent", Agent: "credo", URL: "{env.PG_TEST_CRED_URL}"}, "must not contain credentials"},
		{"http resolved not a URL", SourceConfig{Type: "http", URL: "{env.PG_TEST_BAD_URL}/{id}"}, `url "{env.PG_TEST_BAD_URL}/{id}": its resolved value is not an absolute http(s) URL`},
		{"agent resolved not a URL", SourceConfig{Type: "agent", Agent: "credo", URL: "{env.PG_TEST_BAD_URL}"}, `url "{env.PG_TEST_BAD_URL}": its resolved value is not an absolute http(s) URL`},
	} {
		c := &Config{Sources: []SourceConfig{tt.src}}
		_, err := c.Build(caddy.NewReplacer())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
			continue
		}
		if strings.Contains(err.Error(), password) {
			t.Errorf("%s: the load error carries the credentials: %v", tt.name, err)
		}
	}
}
