package secret

import (
	"net/url"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestIsLiteral(t *testing.T) {
	for v, want := range map[string]bool{
		"":                          false,
		"{env.PROOFGATE_API_KEY}":   false,
		"{file./run/secrets/token}": false,
		"prefix-{env.X}":            false,
		"pg-demo-key-0123456789":    true,
		"sha256:abcd":               true, // callers skip digests themselves
	} {
		if got := IsLiteral(v); got != want {
			t.Errorf("IsLiteral(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestWarnLiteralOnce(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	l := zap.New(core)
	WarnLiteral(l, "api_key a", "plaintext-key-0123456789")
	WarnLiteral(l, "api_key b", "{env.KEY}")
	if logs.Len() != 1 {
		t.Fatalf("%d warnings, want 1", logs.Len())
	}
	e := logs.All()[0]
	if e.ContextMap()["secret"] != "api_key a" {
		t.Errorf("warning names %v", e.ContextMap())
	}
	for _, f := range e.Context {
		if f.String == "plaintext-key-0123456789" {
			t.Error("the warning shows the secret")
		}
	}
}

func TestLoopbackPeer(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:5555":        true,
		"127.8.9.1:1":           true,
		"[::1]:443":             true,
		"[::ffff:127.0.0.1]:80": true,
		"192.0.2.1:80":          false,
		"[2001:db8::1]:80":      false,
		"garbage":               false,
		"":                      false,
	} {
		if got := LoopbackPeer(addr); got != want {
			t.Errorf("LoopbackPeer(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestCleartextRemote(t *testing.T) {
	for raw, want := range map[string]bool{
		"https://idp.example.com/certs": false,
		"http://localhost:8001":         false,
		"http://127.0.0.1:8001":         false,
		"http://[::1]:8001":             false,
		"http://agent:8001":             true,
		"http://10.0.0.5/certs":         true,
		"HTTP://idp.example.com":        true,
		"http://localhost.example.com":  true,
	} {
		u, _ := url.Parse(raw)
		if got := CleartextRemote(u); got != want {
			t.Errorf("CleartextRemote(%s) = %v, want %v", raw, got, want)
		}
	}
}
