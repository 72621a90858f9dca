package integration

import (
	"net/http"
	"testing"

	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// An org moved off a tenant of an agent (to the local verifier) still
// reads and accepts the records it made there: they are asked of that
// tenant, which the record's owner names, not of the agent's base wallet.
func TestMovedOrgKeepsItsTenantsRecords(t *testing.T) {
	credo := openapitest.NewCredo(t, openapitest.CredoOptions{Tenants: []string{"tenant-a"}})
	dir := t.TempDir()
	config := func(orgARoute string) string {
		return globalOptions(dir) + `
` + base + ` {
	proofgate {
		backend credo credo ` + credo.URL + ` {
			token ` + openapitest.CredoRootToken + `
		}
		backend local local {
			public_url ` + base + `
		}
		` + orgARoute + `
		default_backend credo
		public_url ` + base + `
		auth {
			api_key ` + keyA + ` org ` + orgA + `
		}
	}
}
`
	}
	acceptAfterMove(t, config, `org `+orgA+` credo tenant tenant-a`, `org `+orgA+` local`, func(id string) { credo.SetState("tenant-a", id, "presentation-received") })
}

// An org moved from one agent to another still reads and accepts the
// records it made on the first: the owner names the agent that holds
// them, and every agent backend shares what is remembered.
func TestMovedOrgKeepsItsAgentsRecords(t *testing.T) {
	first := openapitest.NewCredo(t, openapitest.CredoOptions{})
	config := twoCredoAgents(t.TempDir(), first, openapitest.NewCredo(t, openapitest.CredoOptions{}), openapitest.CredoDedicatedToken, "second")
	acceptAfterMove(t, config, `org `+orgA+` first`, `org `+orgA+` second`, func(id string) { first.SetState("", id, "presentation-received") })
}

// An org moved from an agent's base wallet to a tenant of another agent
// still reads and accepts the records it made on the first: asked of
// that agent's base wallet, not of the tenant it is routed to now.
func TestMovedOrgFromBaseWalletToTenant(t *testing.T) {
	first := openapitest.NewCredo(t, openapitest.CredoOptions{})
	second := openapitest.NewCredo(t, openapitest.CredoOptions{Tenants: []string{"tenant-b"}})
	config := twoCredoAgents(t.TempDir(), first, second, openapitest.CredoRootToken, "first")
	acceptAfterMove(t, config, `org `+orgA+` first`, `org `+orgA+` second tenant tenant-b`, func(id string) { first.SetState("", id, "presentation-received") })
}

// twoCredoAgents is the config of two credo backends, first and second
// (second's token secondToken), with def the default backend, orgA routed
// by the route the returned function is given; storage in dir.
func twoCredoAgents(dir string, first, second *openapitest.Credo, secondToken, def string) func(route string) string {
	return func(orgARoute string) string {
		return globalOptions(dir) + `
` + base + ` {
	proofgate {
		backend first credo ` + first.URL + ` {
			token ` + openapitest.CredoDedicatedToken + `
		}
		backend second credo ` + second.URL + ` {
			token ` + secondToken + `
		}
		` + orgARoute + `
		default_backend ` + def + `
		public_url ` + base + `
		auth {
			api_key ` + keyA + ` org ` + orgA + `
		}
	}
}
`
	}
}

// acceptAfterMove creates a record of orgA with the config routing it by
// from, moves it presentation-received with present, reloads the config
// routing orgA by to, and reads and accepts the record.
func acceptAfterMove(t *testing.T, config func(route string) string, from, to string, present func(id string)) {
	t.Helper()
	tester := newTester(t)
	tester.InitServer(config(from), "caddyfile")
	settle(t)
	unloadAtEnd(t)
	r := postJSON(t, oobPath(orgA, "indy"), keyA, indyBody)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	id := r.json(t)["data"].(map[string]any)["proofRecordId"].(string)
	present(id)

	tester.InitServer(config(to), "caddyfile") // the move
	settle(t)
	if g := getRecord(t, id, keyA); g.status != http.StatusOK || g.json(t)["state"] != "presentation-received" {
		t.Fatalf("GET after the move: %d %s", g.status, g.body)
	}
	if a := postJSON(t, acceptPath(id), keyA, ""); a.status != http.StatusOK || a.json(t)["state"] != "done" {
		t.Fatalf("accept after the move: %d %s", a.status, a.body)
	}
}
