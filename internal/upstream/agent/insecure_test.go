package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

// TestPlainHTTPToRemoteAgentRefused: the agent's credentials and the proof
// data must not cross the network in clear text unless insecure_http says
// so; loopback and https are fine.
func TestPlainHTTPToRemoteAgentRefused(t *testing.T) {
	for _, tc := range []struct {
		url      string
		insecure bool
		ok       bool
	}{
		{"http://127.0.0.1:8001", false, true},
		{"http://localhost:8001", false, true},
		{"https://agent.example.com", false, true},
		{"http://agent.example.com:8001", false, false},
		{"http://10.1.2.3:8001", false, false},
		{"http://agent.example.com:8001", true, true},
	} {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		c := &Config{URL: tc.url, InsecureHTTP: tc.insecure}
		err := c.Provision(ctx)
		cancel()
		if tc.ok && err != nil {
			t.Errorf("%s insecure=%v: %v", tc.url, tc.insecure, err)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), "insecure_http")) {
			t.Errorf("%s: loaded (%v), want a refusal naming insecure_http", tc.url, err)
		}
	}
}
