package integration

import (
	"net/http"
	"testing"

	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// TestSharedAgentNotExclusive: a record made on an agent directly is
// attributed to a caller's org only where the org has the agent, or a
// tenant of it, to itself (README, "Records made on the agent directly").
// Two backend blocks naming one agent (say, for different timeouts or
// credentials) are one agent: two orgs routed to its base wallet through
// them share that wallet, and neither is asked, so org A does not read a
// record of the wallet it shares with org B. Backends on different agents
// stay exclusive (the control).
func TestSharedAgentNotExclusive(t *testing.T) {
	credo := openapitest.NewCredo(t, openapitest.CredoOptions{})
	another := openapitest.NewCredo(t, openapitest.CredoOptions{})
	dir := t.TempDir()
	tester := newTester(t)
	unloadAtEnd(t)
	for _, tc := range []struct {
		name string
		urlB string // org B's backend's url; org A's is credo's
		want int
	}{
		{"two backends, one agent", credo.URL, http.StatusNotFound},
		{"two backends, one agent, its url spelled otherwise", credo.URL + "/", http.StatusNotFound},
		{"two backends, two agents", another.URL, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tester.InitServer(globalOptions(dir)+`
`+base+` {
	proofgate {
		backend local local {
			public_url `+base+`
		}
		backend c1 credo `+credo.URL+` {
			token `+openapitest.CredoDedicatedToken+`
		}
		backend c2 credo `+tc.urlB+` {
			token `+openapitest.CredoDedicatedToken+`
			timeout 30s
		}
		org `+orgA+` c1
		org `+orgB+` c2
		default_backend local
		auth {
			api_key `+keyA+` org `+orgA+`
			api_key `+keyB+` org `+orgB+`
		}
	}
}
`, "caddyfile")
			settle(t)

			// A request made on org A's agent directly, by org B's
			// people where the agent is shared.
			id := credo.AddRecord("")
			r := do(t, http.MethodGet, "/proofs/"+id, "", "Authorization: Bearer "+keyA)
			if r.status != tc.want {
				t.Fatalf("org A read a record of its agent's base wallet: %d %s; want %d", r.status, r.body, tc.want)
			}
		})
	}
}
