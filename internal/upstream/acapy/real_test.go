package acapy

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
	acapyenv "github.com/proofgate/proofgate/internal/testenv/acapy"
	"github.com/proofgate/proofgate/internal/testenv/storagetest"
)

func TestMain(m *testing.M) { os.Exit(acapyenv.Main(m)) }

// realBackend provisions the backend against a real agent.
func realBackend(t *testing.T, agent *acapyenv.Agent, mutate func(*Backend)) *Backend {
	t.Helper()
	b := &Backend{APIKey: agent.APIKey, storage: &certmagic.FileStorage{Path: t.TempDir()}}
	b.URL = agent.AdminURL
	if mutate != nil {
		mutate(b)
	}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := b.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Cleanup() })
	return b
}

// checkAgainstAgent checks a created request against what the agent holds
// and what its invitation carries.
func checkAgainstAgent(t *testing.T, agent *acapyenv.Agent, token string, res backend.OOBResult, format string) map[string]any {
	t.Helper()
	status, body := agent.Call(t, http.MethodGet, "/present-proof-2.0/records/"+res.ProofRecord.ID, token, nil)
	if status != http.StatusOK {
		t.Fatalf("agent has no record %s: %d %s", res.ProofRecord.ID, status, body)
	}
	var rec map[string]any
	if err := json.Unmarshal(body, &rec); err != nil {
		t.Fatal(err)
	}
	if rec["state"] != "request-sent" || rec["thread_id"] != res.ProofRecord.ThreadID || rec["role"] != "verifier" {
		t.Errorf("agent record %v vs %+v", rec, res.ProofRecord)
	}
	byFormat, _ := rec["by_format"].(map[string]any)
	req, _ := byFormat["pres_request"].(map[string]any)
	if _, ok := req[format]; !ok {
		t.Errorf("agent's request has no %s format: %v", format, byFormat)
	}

	// The invitation carries the request, threaded as the record.
	u, err := url.Parse(res.InvitationURL)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(u.Query().Get("oob"), "="))
	if err != nil {
		t.Fatalf("invitation URL %q: %v", res.InvitationURL, err)
	}
	var inv struct {
		ID      string `json:"@id"`
		Attach  []any  `json:"requests~attach"`
		Handsha []any  `json:"handshake_protocols"`
	}
	if err := json.Unmarshal(raw, &inv); err != nil || inv.ID != res.OutOfBandID || len(inv.Attach) != 1 || len(inv.Handsha) != 0 {
		t.Errorf("invitation %s (oob id %s)", raw, res.OutOfBandID)
	}
	if !strings.Contains(string(raw), res.ProofRecord.ThreadID) {
		t.Errorf("the invitation's request is not on the record's thread %s", res.ProofRecord.ThreadID)
	}
	return req
}

func TestRealACAPy(t *testing.T) {
	realSuite(t, acapyenv.Shared(t))
}

// TestRealACAPy012 runs the same against aries-cloudagent 0.12.8, the
// optional second target (skipped unless PROOFGATE_ACAPY_0_12 is set).
func TestRealACAPy012(t *testing.T) {
	agent := acapyenv.Shared(t, acapyenv.Legacy())
	if !strings.HasPrefix(agent.Version, "0.12.") {
		t.Fatalf("PROOFGATE_ACAPY_0_12 runs ACA-Py %s, want 0.12.x", agent.Version)
	}
	realSuite(t, agent)
}

// realSuite creates indy and presentation-exchange requests through the
// backend in a real agent, and maps its refusals.
func realSuite(t *testing.T, agent *acapyenv.Agent) {
	b := realBackend(t, agent, nil)
	ctx := context.Background()
	org := backend.Org{ID: "org-real"}

	t.Run("indy", func(t *testing.T) {
		res, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		req := checkAgainstAgent(t, agent, "", res, "indy")
		indy := req["indy"].(map[string]any)
		if n, _ := indy["nonce"].(string); n == "" {
			t.Errorf("agent did not add a nonce: %v", indy)
		}
		if res.ProofRecord.State != backend.StateRequestSent || res.ProofRecord.CreatedAt == "" {
			t.Errorf("record %+v", res.ProofRecord)
		}

		// State error: nothing was presented yet.
		_, err = b.AcceptPresentation(ctx, org, res.ProofRecord.ID)
		var conflict *backend.ConflictError
		if !errors.As(err, &conflict) || conflict.State != backend.StateRequestSent {
			t.Fatalf("early accept: %v, want conflict in request-sent", err)
		}
		if got, err := b.RecordOrg(ctx, res.ProofRecord.ID); err != nil || got != org.ID {
			t.Errorf("RecordOrg %q %v", got, err)
		}
	})

	t.Run("presentationExchange", func(t *testing.T) {
		res, err := b.SendOutOfBandRequest(ctx, org, peRequest())
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		req := checkAgainstAgent(t, agent, "", res, "dif")
		def, _ := req["dif"].(map[string]any)["presentation_definition"].(map[string]any)
		if id, _ := def["id"].(string); !uuid4.MatchString(id) {
			t.Errorf("definition id %v", def["id"])
		}
		if !strings.Contains(mustJSON(def), "hub://did:foo:123/Collection/schema.us.gov/passport.json") {
			t.Errorf("the agent lost the input descriptor's schema: %s", mustJSON(def))
		}
	})

	t.Run("owner write fails after the invitation: nothing is left", func(t *testing.T) {
		made := new(madeAtAgent)
		failing := realBackend(t, agent, func(b *Backend) {
			b.URL = recordingProxy(t, agent, made)
			b.storage = &storagetest.FailingStores{Storage: &certmagic.FileStorage{Path: t.TempDir()}, Prefix: "proofgate/upstream-records/"}
		})
		if _, err := failing.SendOutOfBandRequest(ctx, org, indyRequest()); !errors.Is(err, backend.ErrUnavailable) {
			t.Fatalf("create: %v, want ErrUnavailable", err)
		}
		made.checkGone(t, agent)
	})

	t.Run("a later step fails: the discard leaves nothing", func(t *testing.T) {
		// What the handler's undo does when a step after the agent's part
		// (a short URL, a webhook, a mail) fails: the create's invitation
		// and request are deleted at the agent, and its owner forgotten.
		made := new(madeAtAgent)
		recorded := realBackend(t, agent, func(b *Backend) { b.URL = recordingProxy(t, agent, made) })
		res, err := recorded.SendOutOfBandRequest(ctx, org, indyRequest())
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if status, body := agent.Call(t, http.MethodGet, "/out-of-band/invitations?oob_id="+made.OOBID, "", nil); status != http.StatusOK {
			t.Fatalf("the create's out-of-band record %q is not at the agent: %d %s", made.OOBID, status, body)
		}
		if err := recorded.DiscardRecord(ctx, org, res); err != nil {
			t.Fatalf("discard: %v", err)
		}
		made.checkGone(t, agent)
		if got, err := recorded.RecordOrg(ctx, res.ProofRecord.ID); !errors.Is(err, backend.ErrNotFound) {
			t.Errorf("the owner is still known: %q %v", got, err)
		}
	})

	t.Run("not found", func(t *testing.T) {
		if _, err := b.AcceptPresentation(ctx, org, "0b8f6f0e-3f4e-4c8a-9a43-7f1f0d2f9e10"); !errors.Is(err, backend.ErrNotFound) {
			t.Fatalf("unknown record: %v, want ErrNotFound", err)
		}
		if ok, err := b.RecordOrgIn(ctx, org, "0b8f6f0e-3f4e-4c8a-9a43-7f1f0d2f9e10"); err != nil || ok {
			t.Fatalf("RecordOrgIn of an unknown record: %v %v", ok, err)
		}
	})

	t.Run("org check", func(t *testing.T) {
		if err := b.CheckOrg(ctx, org); err != nil {
			t.Errorf("CheckOrg: %v", err)
		}
		bad := realBackend(t, agent, func(b *Backend) { b.APIKey = "wrong" })
		if err := bad.CheckOrg(ctx, org); err == nil || !strings.Contains(err.Error(), "refuses proofgate's api_key") {
			t.Errorf("CheckOrg with a wrong key: %v", err)
		}
	})

	t.Run("wrong api key", func(t *testing.T) {
		bad := realBackend(t, agent, func(b *Backend) { b.APIKey = "wrong" })
		_, err := bad.SendOutOfBandRequest(ctx, org, indyRequest())
		var ue *backend.UpstreamError
		if !errors.As(err, &ue) || ue.Status != http.StatusUnauthorized {
			t.Fatalf("got %v, want UpstreamError 401", err)
		}
	})
}

func TestRealACAPyMultitenant(t *testing.T) {
	agent := acapyenv.Shared(t, acapyenv.Multitenant())
	ctx := context.Background()
	w1 := agent.CreateWallet(t, "pg-org1")
	w2 := agent.CreateWallet(t, "pg-org2")
	org1 := backend.Org{ID: "org-1", Tenant: w1.ID}
	org2 := backend.Org{ID: "org-2", Tenant: w2.ID}

	// Configured token for wallet 1, fetched token for wallet 2.
	b := realBackend(t, agent, func(b *Backend) {
		b.TenantTokens = map[string]string{w1.ID: w1.Token}
		b.FetchWalletTokens = true
	})
	res1, err := b.SendOutOfBandRequest(ctx, org1, indyRequest())
	if err != nil {
		t.Fatalf("create in wallet 1: %v", err)
	}
	checkAgainstAgent(t, agent, w1.Token, res1, "indy")
	res2, err := b.SendOutOfBandRequest(ctx, org2, peRequest())
	if err != nil {
		t.Fatalf("create in wallet 2 (fetched token): %v", err)
	}
	// (Whether our fetch made w2.Token stale depends on the clock: ACA-Py
	// compares the tokens' iat, in whole seconds.)
	tok2, err := b.tokens.Get(ctx, w2.ID)
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstAgent(t, agent, tok2, res2, "dif")

	// Wallet isolation: org 2's wallet does not know org 1's record.
	if _, err := b.AcceptPresentation(ctx, org2, res1.ProofRecord.ID); !errors.Is(err, backend.ErrNotFound) {
		t.Errorf("accept of another wallet's record: %v, want ErrNotFound", err)
	}
	var conflict *backend.ConflictError
	if _, err := b.AcceptPresentation(ctx, org1, res1.ProofRecord.ID); !errors.As(err, &conflict) || conflict.State != "request-sent" {
		t.Errorf("early accept: %v", err)
	}
	if err := b.owners.Forget(ctx, res1.ProofRecord.ID); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.RecordOrgIn(ctx, org1, res1.ProofRecord.ID); err != nil || !ok {
		t.Errorf("RecordOrgIn, own wallet: %v %v", ok, err)
	}
	if ok, err := b.RecordOrgIn(ctx, org2, res1.ProofRecord.ID); err != nil || ok {
		t.Errorf("RecordOrgIn, other wallet: %v %v", ok, err)
	}

	// The load-time org check: a known wallet passes, an unknown one and a
	// refused token are named.
	if err := b.CheckOrg(ctx, org1); err != nil {
		t.Errorf("CheckOrg of a served wallet: %v", err)
	}
	if err := b.CheckOrg(ctx, backend.Org{ID: "org-x", Tenant: "3f0c2a57-1d9b-4e0a-9f5e-6c1a2b3d4e5f"}); err == nil || !strings.Contains(err.Error(), "no wallet 3f0c2a57") {
		t.Errorf("CheckOrg of an unknown wallet: %v", err)
	}
	stale := realBackend(t, agent, func(b *Backend) {
		b.TenantTokens = map[string]string{w1.ID: "eyJhbGciOiJIUzI1NiJ9.eyJ3YWxsZXRfaWQiOiJ4In0.c2lnbmF0dXJl"}
	})
	if err := stale.CheckOrg(ctx, org1); err == nil || !strings.Contains(err.Error(), "refuses the token of wallet "+w1.ID) || strings.Contains(err.Error(), "eyJ") {
		t.Errorf("CheckOrg with a stale token: %v", err)
	}

	// Someone else takes wallet 2's token: proofgate renews once.
	status, body := agent.Call(t, http.MethodPost, "/multitenancy/wallet/"+w2.ID+"/token", "", map[string]any{})
	if status != http.StatusOK {
		t.Fatalf("minting a token: %d %s", status, body)
	}
	if _, err := b.SendOutOfBandRequest(ctx, org2, indyRequest()); err != nil {
		t.Fatalf("after another client took the token: %v", err)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// madeAtAgent holds the ids of what a create made at the agent, as the
// agent's answers named them.
type madeAtAgent struct {
	PresExID string `json:"pres_ex_id"`
	OOBID    string `json:"oob_id"`
}

// recordingProxy returns the URL of a proxy to the agent that reads the
// agent's answers to POSTs on their way, filling made: each create call
// fills its own id.
func recordingProxy(t *testing.T, agent *acapyenv.Agent, made *madeAtAgent) string {
	t.Helper()
	target, _ := url.Parse(agent.AdminURL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method != http.MethodPost {
			return nil
		}
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		_ = json.Unmarshal(raw, made)
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

// checkGone fails t unless the agent holds neither the request nor the
// invitation's out-of-band record.
func (made *madeAtAgent) checkGone(t *testing.T, agent *acapyenv.Agent) {
	t.Helper()
	if made.PresExID == "" || made.OOBID == "" {
		t.Fatalf("the agent's answers named no request or invitation: %+v", made)
	}
	if status, body := agent.Call(t, http.MethodGet, "/present-proof-2.0/records/"+made.PresExID, "", nil); status != http.StatusNotFound {
		t.Errorf("the request is still at the agent: %d %s", status, body)
	}
	if status, body := agent.Call(t, http.MethodGet, "/out-of-band/invitations?oob_id="+made.OOBID, "", nil); status != http.StatusNotFound {
		t.Errorf("the invitation's out-of-band record is still at the agent: %d %s", status, body)
	}
}
