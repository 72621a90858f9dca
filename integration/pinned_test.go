package integration

// The tests in this file pin checks that a round of mutation testing
// found held by no test: each fails when its check is dropped or weakened.

import (
	"testing"

	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// An org moved from an agent's base wallet to a tenant of another agent
// still reads and accepts the records it made on the first: asked of
// that agent's base wallet, not of the tenant it is routed to now.
func TestMovedOrgFromBaseWalletToTenant(t *testing.T) {
	first := openapitest.NewCredo(t, openapitest.CredoOptions{})
	second := openapitest.NewCredo(t, openapitest.CredoOptions{Tenants: []string{"tenant-b"}})
	dir := t.TempDir()
	config := func(orgARoute string) string {
		return globalOptions(dir) + `
` + base + ` {
	proofgate {
		backend first credo ` + first.URL + ` {
			token ` + openapitest.CredoDedicatedToken + `
		}
		backend second credo ` + second.URL + ` {
			token ` + openapitest.CredoRootToken + `
		}
		` + orgARoute + `
		default_backend first
		public_url ` + base + `
		auth {
			api_key ` + keyA + ` org ` + orgA + `
		}
	}
}
`
	}
	acceptAfterMove(t, config, `org `+orgA+` first`, `org `+orgA+` second tenant tenant-b`, func(id string) { first.SetState("", id, "presentation-received") })
}
