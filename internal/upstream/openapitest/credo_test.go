package openapitest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// credoCall sends one request to the fake agent and returns status and body.
func credoCall(t *testing.T, c *Credo, method, path, auth, body string) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, out
}

// TestCredoModelsTheRealAgent pins the behaviour credo-controller 2.1.3
// showed (and its document does not state), as the double's comment lists it.
func TestCredoModelsTheRealAgent(t *testing.T) {
	multi := NewCredo(t, CredoOptions{Tenants: []string{"tenant-a"}})

	// Token endpoint: raw API key only.
	if st, _ := credoCall(t, multi, "POST", "/agent/token", "Bearer "+CredoAPIKey, ""); st != 401 {
		t.Errorf("Bearer API key: %d, want 401", st)
	}
	st, body := credoCall(t, multi, "POST", "/agent/token", CredoAPIKey, "")
	if st != 200 || body["token"] != CredoRootToken {
		t.Fatalf("agent token: %d %v", st, body)
	}

	// The base wallet's token is refused on the proof routes, reason in details.
	st, body = credoCall(t, multi, "GET", "/didcomm/proofs", "Bearer "+CredoRootToken, "")
	if st != 401 || body["message"] != "Unauthorized" || body["details"] == nil {
		t.Errorf("base wallet on /didcomm/proofs: %d %v", st, body)
	}

	// A token for any id; the wrong tenant fails on first use.
	st, body = credoCall(t, multi, "POST", "/multi-tenancy/get-token/no-such-tenant", "Bearer "+CredoRootToken, "")
	if st != 200 || body["token"] == nil {
		t.Fatalf("token for an unknown tenant: %d %v", st, body)
	}
	st, body = credoCall(t, multi, "GET", "/didcomm/proofs", "Bearer "+body["token"].(string), "")
	if st != 401 || body["message"] != "Unauthorized" || !strings.Contains(body["details"].(string), "TenantRecord: record with id no-such-tenant not found.") {
		t.Errorf("unknown tenant's token: %d %v", st, body)
	}
	if st, _ := credoCall(t, multi, "GET", "/multi-tenancy/no-such-tenant", "Bearer "+CredoRootToken, ""); st != 404 {
		t.Errorf("tenant lookup of an unknown tenant: %d", st)
	}
	if st, _ := credoCall(t, multi, "GET", "/multi-tenancy/tenant-a", "Bearer "+CredoRootToken, ""); st != 200 {
		t.Errorf("tenant lookup: %d", st)
	}

	// Accept before a presentation, and after the accept.
	_, body = credoCall(t, multi, "POST", "/multi-tenancy/get-token/tenant-a", "Bearer "+CredoRootToken, "")
	tok := "Bearer " + body["token"].(string)
	st, body = credoCall(t, multi, "POST", "/didcomm/proofs/create-request-oob", tok,
		`{"protocolVersion":"v2","proofFormats":{"indy":{"name":"x","version":"1.0","requested_attributes":{"a":{"name":"n"}},"requested_predicates":{}}}}`)
	if st != 200 {
		t.Fatalf("create: %d %v", st, body)
	}
	recs := multi.Records("tenant-a")
	id := recs[0]["id"].(string)
	st, body = credoCall(t, multi, "POST", "/didcomm/proofs/"+id+"/accept-presentation", tok, "")
	if st != 500 || body["message"] != "CredoError: No presentation message found for proof record with id '"+id+"'" {
		t.Errorf("accept in request-sent: %d %v", st, body)
	}
	multi.SetState("tenant-a", id, "presentation-received")
	if st, body = credoCall(t, multi, "POST", "/didcomm/proofs/"+id+"/accept-presentation", tok, ""); st != 200 || body["state"] != "done" {
		t.Errorf("accept: %d %v", st, body)
	}
	st, body = credoCall(t, multi, "POST", "/didcomm/proofs/"+id+"/accept-presentation", tok, "")
	if st != 500 || !strings.Contains(body["message"].(string), "Proof record is in invalid state done. Valid states are: presentation-received.") {
		t.Errorf("second accept: %d %v", st, body)
	}

	// A dedicated agent refuses the multi-tenancy routes.
	dedicated := NewCredo(t, CredoOptions{})
	st, body = credoCall(t, dedicated, "POST", "/multi-tenancy/get-token/x", "Bearer "+CredoDedicatedToken, "")
	if st != 401 || !strings.Contains(body["details"].(string), "Multitenant routes") {
		t.Errorf("dedicated agent, tenant route: %d %v", st, body)
	}
}

// TestCredoOutOfBandRecords: the out-of-band records a create made are
// listed by their invitation's @id in the creating wallet only, deleted by
// record id (204), and a record that is not there is 404, as
// credo-controller answers Credo's RecordNotFoundError.
func TestCredoOutOfBandRecords(t *testing.T) {
	multi := NewCredo(t, CredoOptions{Tenants: []string{"tenant-a", "tenant-b"}})
	token := func(tenant string) string {
		_, body := credoCall(t, multi, "POST", "/multi-tenancy/get-token/"+tenant, "Bearer "+CredoRootToken, "")
		return "Bearer " + body["token"].(string)
	}
	a, b := token("tenant-a"), token("tenant-b")
	st, body := credoCall(t, multi, "POST", "/didcomm/proofs/create-request-oob", a,
		`{"protocolVersion":"v2","proofFormats":{"indy":{"name":"x","version":"1.0","requested_attributes":{"a":{"name":"n"}},"requested_predicates":{}}}}`)
	if st != 200 {
		t.Fatalf("create: %d %v", st, body)
	}
	inv := body["invitation"].(map[string]any)["@id"].(string)
	oob := body["outOfBandRecord"].(map[string]any)["id"].(string)
	if got := multi.Invitations("tenant-a"); len(got) != 1 || got[0] != inv {
		t.Fatalf("tenant-a's invitations %v, want [%s]", got, inv)
	}

	list := func(auth, invitationID string) []any {
		t.Helper()
		req, _ := http.NewRequest("GET", multi.URL+"/didcomm/oob?invitationId="+invitationID, nil)
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out []any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
			t.Fatalf("list: %d %v", resp.StatusCode, err)
		}
		return out
	}
	if got := list(a, inv); len(got) != 1 || got[0].(map[string]any)["id"] != oob {
		t.Errorf("tenant-a's list for its invitation: %v", got)
	}
	if got := list(a, "8d3c7a4e-2f1b-4c5d-9e6f-0a1b2c3d4e5f"); len(got) != 0 {
		t.Errorf("list for another invitation: %v", got)
	}
	if got := list(b, inv); len(got) != 0 {
		t.Errorf("tenant-b lists tenant-a's invitation: %v", got)
	}
	if st, _ := credoCall(t, multi, "DELETE", "/didcomm/oob/"+oob, b, ""); st != 404 {
		t.Errorf("tenant-b deletes tenant-a's record: %d", st)
	}
	if st, _ := credoCall(t, multi, "DELETE", "/didcomm/oob/"+oob, a, ""); st != 204 {
		t.Errorf("delete: %d", st)
	}
	if got := multi.Invitations("tenant-a"); len(got) != 0 {
		t.Errorf("after the delete tenant-a holds %v", got)
	}
	st, body = credoCall(t, multi, "DELETE", "/didcomm/oob/"+oob, a, "")
	if st != 404 || body["message"] != "OutOfBandRecord: record with id "+oob+" not found." {
		t.Errorf("second delete: %d %v", st, body)
	}
}
