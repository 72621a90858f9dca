package apikey

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

const demoKey = "pg-demo-key-change-me-0123456789"

// TestLoopbackDefault: with its variable unset, a key falls back to its
// demo default, which works only for callers on loopback.
func TestLoopbackDefault(t *testing.T) {
	t.Setenv("PROOFGATE_TEST_UNSET", "")
	core, logs := observer.New(zap.WarnLevel)
	p := &Provider{Keys: []Key{{Key: "{env.PROOFGATE_TEST_UNSET}", Orgs: []string{"org"}, LoopbackDefault: demoKey}}}
	if err := p.provision(zap.New(core)); err != nil {
		t.Fatal(err)
	}
	if logs.FilterMessageSnippet("loopback").Len() != 1 {
		t.Errorf("no warning that the demo default is in use: %v", logs.All())
	}
	for addr, ok := range map[string]bool{"127.0.0.1:4000": true, "[::1]:4000": true, "192.0.2.7:4000": false, "[2001:db8::7]:1": false} {
		r := httptest.NewRequest("POST", "/", nil)
		r.RemoteAddr = addr
		r.Header.Set("Authorization", "Bearer "+demoKey)
		_, err := p.Authenticate(r)
		if ok && err != nil {
			t.Errorf("%s: %v", addr, err)
		}
		if !ok && !errors.Is(err, errDemoKeyRemote) {
			t.Errorf("%s: the demo key worked from off the machine (%v)", addr, err)
		}
	}
	// A request a proxy on this host forwarded comes from loopback for a
	// caller anywhere: the demo key is refused. (A forwarding header from
	// off the machine never made it loopback.)
	for _, h := range []string{"X-Forwarded-For", "Forwarded", "X-Real-IP"} {
		r := httptest.NewRequest("POST", "/", nil)
		r.RemoteAddr = "127.0.0.1:4000"
		r.Header.Set(h, "203.0.113.9")
		r.Header.Set("Authorization", "Bearer "+demoKey)
		if _, err := p.Authenticate(r); !errors.Is(err, errDemoKeyRemote) {
			t.Errorf("forwarded by a local proxy (%s): %v, want the demo key refused", h, err)
		}
	}
	r := httptest.NewRequest("POST", "/", nil)
	r.RemoteAddr = "192.0.2.7:4000"
	r.Header.Set("X-Forwarded-For", "127.0.0.1")
	r.Header.Set("Authorization", "Bearer "+demoKey)
	if _, err := p.Authenticate(r); !errors.Is(err, errDemoKeyRemote) {
		t.Errorf("a forwarding header naming loopback from off the machine: %v", err)
	}

	// With the variable set, the demo key is not accepted at all.
	t.Setenv("PROOFGATE_TEST_SET", "real-key-from-env-0123456789")
	p = &Provider{Keys: []Key{{Key: "{env.PROOFGATE_TEST_SET}", Orgs: []string{"org"}, LoopbackDefault: demoKey}}}
	if err := p.provision(zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	r = httptest.NewRequest("POST", "/", nil)
	r.RemoteAddr = "127.0.0.1:1"
	r.Header.Set("Authorization", "Bearer "+demoKey)
	if _, err := p.Authenticate(r); err == nil {
		t.Error("the demo key works although the real key is set")
	}

	// Unset and no default: the load fails, naming the placeholder.
	p = &Provider{Keys: []Key{{Key: "{env.PROOFGATE_TEST_UNSET}", Orgs: []string{"org"}}}}
	if err := p.provision(zap.NewNop()); err == nil || !strings.Contains(err.Error(), "PROOFGATE_TEST_UNSET") {
		t.Errorf("unset key without default: %v", err)
	}
}

// TestWarnsOncePerPlaintextKey: keys written literally in the config are
// shown by Caddy's admin API; each gets one warning (without the key).
func TestWarnsOncePerPlaintextKey(t *testing.T) {
	t.Setenv("PROOFGATE_TEST_KEY", "key-from-env-0123456789")
	core, logs := observer.New(zap.WarnLevel)
	p := &Provider{Keys: []Key{
		{Key: "literal-key-one-0123456789", Orgs: []string{"a"}, Label: "one"},
		{Key: "literal-key-two-0123456789", Orgs: []string{"b"}, Label: "two"},
		{Key: "{env.PROOFGATE_TEST_KEY}", Orgs: []string{"c"}},
		{Key: Digest("hashed-key-0123456789"), Orgs: []string{"d"}},
	}}
	if err := p.provision(zap.New(core)); err != nil {
		t.Fatal(err)
	}
	if logs.Len() != 2 {
		t.Fatalf("%d warnings, want 2: %v", logs.Len(), logs.All())
	}
	for i, e := range logs.All() {
		want := []string{"api_key one", "api_key two"}[i]
		if e.ContextMap()["secret"] != want {
			t.Errorf("warning %d names %v, want %s", i, e.ContextMap(), want)
		}
		if strings.Contains(e.Message, "literal-key") {
			t.Error("the warning shows the key")
		}
	}
}
