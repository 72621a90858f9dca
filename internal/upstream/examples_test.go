// Package upstream_test checks the upstream example Caddyfiles: they adapt,
// and put the proofgate handler before reverse_proxy to the same agent.
package upstream_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/proofgate/proofgate"
	_ "github.com/proofgate/proofgate/internal/upstream/acapy"
	_ "github.com/proofgate/proofgate/internal/upstream/credo"
)

func TestExamples(t *testing.T) {
	for _, tt := range []struct {
		file, typ, secretVar, secretField string
	}{
		{"../../examples/credo.Caddyfile", "credo", "PROOFGATE_AGENT_TOKEN", "token"},
		{"../../examples/acapy.Caddyfile", "acapy", "PROOFGATE_AGENT_API_KEY", "api_key"},
	} {
		t.Run(tt.typ, func(t *testing.T) {
			t.Setenv("PROOFGATE_AGENT_URL", "http://127.0.0.1:8999")
			t.Setenv(tt.secretVar, "s3cret")
			data, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			out, warns, err := caddyconfig.GetAdapter("caddyfile").Adapt(data, nil)
			if err != nil {
				t.Fatalf("adapt: %v", err)
			}
			// Secrets stay runtime placeholders: the adapted config (what
			// Caddy's admin API and autosave.json show) never holds them.
			if strings.Contains(string(out), "s3cret") {
				t.Errorf("the agent secret is in the adapted config")
			}
			if len(warns) > 0 {
				t.Errorf("warnings: %v", warns)
			}
			var cfg struct {
				Apps struct {
					HTTP struct {
						Servers map[string]struct {
							Routes []struct {
								Handle []map[string]any `json:"handle"`
							} `json:"routes"`
						} `json:"servers"`
					} `json:"http"`
				} `json:"apps"`
			}
			if err := json.Unmarshal(out, &cfg); err != nil {
				t.Fatal(err)
			}
			var order []string
			var gw, proxy map[string]any
			for _, srv := range cfg.Apps.HTTP.Servers {
				for _, r := range srv.Routes {
					for _, h := range r.Handle {
						walk(h, func(h map[string]any) {
							name, _ := h["handler"].(string)
							switch name {
							case "proofgate":
								gw = h
							case "reverse_proxy":
								proxy = h
							default:
								return
							}
							order = append(order, name)
						})
					}
				}
			}
			if strings.Join(order, ",") != "proofgate,reverse_proxy" {
				t.Fatalf("handlers %v, want proofgate before reverse_proxy", order)
			}
			b, _ := gw["backends"].(map[string]any)["agent"].(map[string]any)
			if b["type"] != tt.typ || b["url"] != "http://127.0.0.1:8999" || b[tt.secretField] != "{env."+tt.secretVar+"}" || gw["default_backend"] != "agent" {
				t.Errorf("backend %v, default %v", b, gw["default_backend"])
			}
			ups, _ := proxy["upstreams"].([]any)
			if len(ups) != 1 || ups[0].(map[string]any)["dial"] != "127.0.0.1:8999" {
				t.Errorf("reverse_proxy upstreams %v", ups)
			}
		})
	}
}

// walk visits h and the handlers of the subroutes inside it.
func walk(h map[string]any, visit func(map[string]any)) {
	visit(h)
	routes, _ := h["routes"].([]any)
	for _, r := range routes {
		rm, _ := r.(map[string]any)
		hs, _ := rm["handle"].([]any)
		for _, sub := range hs {
			if m, ok := sub.(map[string]any); ok {
				walk(m, visit)
			}
		}
	}
}
