package integration

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// TestUpstreamAgentsThroughCaddy runs the handler with three backends at
// once: org A on a tenant of a multi-tenant credo-controller, org B on an
// ACA-Py, every other org on the local verifier. The agents are
// conformance-checking fakes that fail the test on any request their
// OpenAPI documents do not allow.
func TestUpstreamAgentsThroughCaddy(t *testing.T) {
	credo := openapitest.NewCredo(t, openapitest.CredoOptions{Tenants: []string{"tenant-a"}})
	acapy := openapitest.NewACAPy(t, openapitest.ACAPyOptions{APIKey: "acapy-admin-key"})
	dir := t.TempDir()
	tester := newTester(t)
	config := globalOptions(dir) + `
` + base + ` {
	proofgate {
		backend local local {
			public_url ` + base + `
		}
		backend credo credo ` + credo.URL + ` {
			token ` + openapitest.CredoRootToken + `
		}
		backend acapy acapy ` + acapy.URL + ` {
			api_key acapy-admin-key
			owner_retention 90d
		}
		org ` + orgA + ` credo tenant tenant-a
		org ` + orgB + ` acapy
		default_backend local
		auth {
			api_key ` + keyA + ` org ` + orgA + `
			api_key ` + keyB + ` org ` + orgB + `
		}
	}
}
`
	tester.InitServer(config, "caddyfile")
	settle(t)

	t.Run("credo create, short URL, accept", func(t *testing.T) {
		owners := metricValue(t, "caddy_proofgate_record_owners")
		r := postJSON(t, oobPath(orgA, "indy"), keyA, strings.Replace(indyBody, `"isShortenUrl":false`, `"isShortenUrl":true`, 1))
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		if got := metricValue(t, "caddy_proofgate_record_owners") - owners; got != 1 {
			t.Fatalf("caddy_proofgate_record_owners grew by %v, want 1", got)
		}
		data := r.json(t)["data"].(map[string]any)
		id := data["proofRecordId"].(string)
		if !strings.HasPrefix(data["invitationUrl"].(string), base+"/url/") {
			t.Fatalf("short URLs must work in upstream mode: %v", data["invitationUrl"])
		}
		if j := do(t, http.MethodGet, strings.TrimPrefix(data["invitationUrl"].(string), base), "", "Accept: application/json"); j.status != 200 {
			t.Fatalf("short URL: %d %s", j.status, j.body)
		}
		wantBody(t, postJSON(t, acceptPath(id), keyB, ""), http.StatusForbidden, forbidden)
		// credo-controller answers 500 "No presentation message found";
		// proofgate reads the state back and answers 409 naming it.
		if a := postJSON(t, acceptPath(id), keyA, ""); a.status != http.StatusConflict || !strings.Contains(string(a.body), "request-sent") {
			t.Fatalf("accept before the presentation: %d %s", a.status, a.body)
		}

		credo.SetState("tenant-a", id, "presentation-received")
		a := postJSON(t, acceptPath(id), keyA, "")
		if a.status != http.StatusOK || a.json(t)["state"] != "done" || a.json(t)["id"] != id {
			t.Fatalf("accept: %d %s", a.status, a.body)
		}
		if a := postJSON(t, acceptPath(id), keyA, ""); a.status != http.StatusConflict || !strings.Contains(string(a.body), "done") {
			t.Fatalf("accept after done: %d %s", a.status, a.body)
		}
	})

	t.Run("credo presentationExchange: a presentation that misses the definition is not accepted", func(t *testing.T) {
		// Credo's verifier would accept it (it ignores PEX's errors):
		// proofgate checks it first, answers 409 naming the field, and
		// sends no accept to the agent; the one that meets it is accepted.
		r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, peBody)
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		id := r.json(t)["data"].(map[string]any)["proofRecordId"].(string)
		present := func(subject map[string]any) {
			credo.Present("tenant-a", id, openapitest.LDPPresentation("32f54163-7166-48f1-93d8-ff217bdb0653", "citizenship", credo.Challenge(id), subject))
		}
		present(map[string]any{"id": "did:example:holder", "name": "Alice"})
		a := postJSON(t, acceptPath(id), keyA, "")
		if a.status != http.StatusConflict || !strings.Contains(string(a.body), "does not answer the proof request") || !strings.Contains(string(a.body), "license") {
			t.Fatalf("accept of a presentation without the required field: %d %s", a.status, a.body)
		}
		for _, rec := range credo.Records("tenant-a") {
			if rec["id"] == id && rec["state"] != "presentation-received" {
				t.Fatalf("the agent's record moved to %v", rec["state"])
			}
		}
		present(map[string]any{"id": "did:example:holder", "license": "B"})
		if a := postJSON(t, acceptPath(id), keyA, ""); a.status != http.StatusOK || a.json(t)["state"] != "done" {
			t.Fatalf("accept of a presentation that meets the definition: %d %s", a.status, a.body)
		}
	})

	t.Run("record made on the agent directly", func(t *testing.T) {
		// proofgate never saw it: ownership must then be asked of the
		// agent of the caller's org (org A has a tenant to itself).
		id := credo.AddRecord("tenant-a")
		credo.SetState("tenant-a", id, "presentation-received")
		wantBody(t, postJSON(t, acceptPath(id), keyB, ""), http.StatusNotFound, "")
		if a := postJSON(t, acceptPath(id), keyA, ""); a.status != http.StatusOK {
			t.Fatalf("accept: %d %s", a.status, a.body)
		}
	})

	t.Run("acapy create and state conflict", func(t *testing.T) {
		r := postJSON(t, oobPath(orgB, "presentationExchange"), keyB, peBody)
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		data := r.json(t)["data"].(map[string]any)
		inv := data["invitation"].(map[string]any)
		if inv["@id"] != data["outOfBandId"] || len(inv["requests~attach"].([]any)) != 1 {
			t.Fatalf("invitation %v", inv)
		}
		wantBody(t, postJSON(t, acceptPath(data["proofRecordId"].(string)), keyB, ""), http.StatusConflict, "")
	})

	t.Run("acapy refuses present-proof 1.0", func(t *testing.T) {
		r := postJSON(t, oobPath(orgB, "indy"), keyB, strings.Replace(indyBody, `"isShortenUrl":false`, `"isShortenUrl":false,"protocolVersion":"v1"`, 1))
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "protocolVersion") {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})

	t.Run("a failed short URL leaves no record", func(t *testing.T) {
		// Agents' short URLs are documents of their own: break their
		// storage (a file where the directory belongs). The create fails
		// with 503, and the record ACA-Py had already made is deleted.
		shorts := filepath.Join(dir, "proofgate", "shorturls")
		if err := os.Rename(shorts, shorts+".aside"); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.WriteFile(shorts, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		before := len(acapy.Records(""))
		r := postJSON(t, oobPath(orgB, "indy"), keyB, strings.Replace(indyBody, `"isShortenUrl":false`, `"isShortenUrl":true`, 1))
		wantBody(t, r, http.StatusServiceUnavailable,
			`{"statusCode":503,"error":"Service Unavailable","message":"the verifier is unavailable; try again later"}`)
		if after := len(acapy.Records("")); after != before {
			t.Fatalf("ACA-Py holds %d records after the failed create, %d before", after, before)
		}
		// With storage mended, the same request succeeds.
		if err := os.Remove(shorts); err != nil {
			t.Fatal(err)
		}
		if r := postJSON(t, oobPath(orgB, "indy"), keyB, strings.Replace(indyBody, `"isShortenUrl":false`, `"isShortenUrl":true`, 1)); r.status != http.StatusCreated {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})

	t.Run("agent errors", func(t *testing.T) {
		acapy.Inject(openapitest.ACAPyCreateRequest, openapitest.Fault{Status: 500, Body: `secret internals`, ContentType: "text/plain"})
		r := postJSON(t, oobPath(orgB, "indy"), keyB, indyBody)
		if r.status != http.StatusBadGateway || strings.Contains(string(r.body), "secret") {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})

	t.Run("agent down", func(t *testing.T) {
		acapy.Close()
		// A connection the client kept alive may still be picked as the
		// server goes: the POST then ends without an answer (502, and not
		// retried, since the agent may have acted on it). Once the closed
		// connections are gone, the refused dial is 503.
		r := postJSON(t, oobPath(orgB, "indy"), keyB, indyBody)
		if r.status == http.StatusBadGateway {
			r = postJSON(t, oobPath(orgB, "indy"), keyB, indyBody)
		}
		wantBody(t, r, http.StatusServiceUnavailable, "")
	})
}
