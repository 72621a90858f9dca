package agent

import (
	"net/url"
	"testing"
)

// TestIdentity: spellings of one agent's URL are one agent; other agents,
// kinds or paths are not.
func TestIdentity(t *testing.T) {
	id := func(kind, raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return Identity(kind, u)
	}
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"http://127.0.0.1:3000", "http://127.0.0.1:3000/", true},
		{"https://Agent.Example:443/api", "https://agent.example./api/", true},
		{"http://agent.example:80", "HTTP://agent.example", true},
		{"http://[::1]:80", "http://[::1]", true},
		{"http://127.0.0.1:3000", "http://127.0.0.1:3001", false},
		{"http://agent.example", "https://agent.example", false},
		{"http://agent.example/a", "http://agent.example/b", false},
		{"http://agent.example/A", "http://agent.example/a", false}, // paths are case-sensitive
	} {
		if got := id("credo", tc.a) == id("credo", tc.b); got != tc.same {
			t.Errorf("%s and %s: same agent %v, want %v (%q, %q)", tc.a, tc.b, got, tc.same, id("credo", tc.a), id("credo", tc.b))
		}
	}
	if id("credo", "http://a:1") == id("acapy", "http://a:1") {
		t.Error("two kinds of agent at one url are one agent")
	}
}
