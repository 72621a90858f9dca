package credo

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

func indyRequest() backend.OOBRequest {
	return backend.OOBRequest{
		RequestType: backend.RequestIndy, ProtocolVersion: backend.ProtocolV2, ReuseConnection: true,
		Indy: &backend.IndyProofRequest{
			Name: "proof of age", Version: "1.0",
			RequestedAttributes: map[string]backend.IndyAttribute{
				"attr1": {Name: "name", Restrictions: []map[string]string{{"schema_id": "Th7MpTaRZVRYnPiabds81Y:2:person:1.0"}}},
			},
			RequestedPredicates: map[string]backend.IndyPredicate{
				"pred1": {Name: "age", PType: ">=", PValue: 18},
			},
		},
		AutoAcceptProof: "never", GoalCode: "request-proof", Comment: "please", Label: "Verifier",
		ParentThreadID: "7b1e9f0a-7a3c-4a8e-9d53-8f5b1f2a6c11",
	}
}

const peDefinition = `{"id":"32f54163-7166-48f1-93d8-ff217bdb0653","input_descriptors":[{"id":"wa_driver_license","name":"Washington State Business License","purpose":"licensed","constraints":{"fields":[{"path":["$.credentialSubject.dateOfBirth"],"filter":{"type":"string","pattern":"^\\d{4}"}}]}}]}`

func peRequest() backend.OOBRequest {
	return backend.OOBRequest{
		RequestType: backend.RequestPresentationExchange, ProtocolVersion: backend.ProtocolV2,
		PresentationDefinition:   json.RawMessage(peDefinition),
		PresentationDefinitionID: "32f54163-7166-48f1-93d8-ff217bdb0653",
		AutoAcceptProof:          "always",
	}
}

// newBackend provisions a credo backend against fake, with storage on disk.
func newBackend(t *testing.T, fake *openapitest.Credo, opts openapitest.CredoOptions, mutate func(*Backend)) *Backend {
	t.Helper()
	b := &Backend{Token: openapitest.CredoDedicatedToken}
	b.URL = fake.URL
	if len(opts.Tenants) > 0 {
		b.Token = openapitest.CredoRootToken
	}
	if opts.Legacy {
		b.Routes = RoutesLegacy
	}
	b.storage = &certmagic.FileStorage{Path: t.TempDir()}
	if mutate != nil {
		mutate(b)
	}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := b.Provision(ctx); err != nil {
		t.Fatalf("Provision: %v", err)
	}
	if err := b.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	t.Cleanup(func() { _ = b.Cleanup() })
	return b
}

// TestConformance runs both operations through every layout, tenancy and
// request type against a fake agent that checks each request against
// credo-controller's OpenAPI document.
func TestConformance(t *testing.T) {
	layouts := []struct {
		name string
		opts openapitest.CredoOptions
	}{
		{"default/dedicated", openapitest.CredoOptions{}},
		{"default/multi-tenant", openapitest.CredoOptions{Tenants: []string{"tenant-a", "tenant-b"}}},
		{"legacy/dedicated", openapitest.CredoOptions{Legacy: true}},
		{"legacy/multi-tenant", openapitest.CredoOptions{Legacy: true, Tenants: []string{"tenant-a", "tenant-b"}}},
	}
	requests := []struct {
		name   string
		req    backend.OOBRequest
		format string
	}{
		{"indy", indyRequest(), "indy"},
		{"presentationExchange", peRequest(), "presentationExchange"},
	}
	for _, l := range layouts {
		for _, rq := range requests {
			t.Run(l.name+"/"+rq.name, func(t *testing.T) {
				fake := openapitest.NewCredo(t, l.opts)
				b := newBackend(t, fake, l.opts, func(b *Backend) { b.InvitationDID = "did:peer:2.reused" })
				org := backend.Org{ID: "org-1"}
				if len(l.opts.Tenants) > 0 {
					org.Tenant = "tenant-b"
				}
				ctx := context.Background()

				res, err := b.SendOutOfBandRequest(ctx, org, rq.req)
				if err != nil {
					t.Fatalf("SendOutOfBandRequest: %v", err)
				}
				recs := fake.Records(org.Tenant)
				if len(recs) != 1 {
					t.Fatalf("agent has %d records for tenant %q, want 1", len(recs), org.Tenant)
				}
				if res.ProofRecord.ID != recs[0]["id"] || res.ProofRecord.ThreadID != recs[0]["threadId"] {
					t.Errorf("record %s/%s, agent has %v/%v", res.ProofRecord.ID, res.ProofRecord.ThreadID, recs[0]["id"], recs[0]["threadId"])
				}
				if res.ProofRecord.State != backend.StateRequestSent || res.ProofRecord.OrgID != "org-1" ||
					res.ProofRecord.ProtocolVersion != "v2" || res.ProofRecord.Role != "verifier" || res.ProofRecord.Metadata == nil {
					t.Errorf("record not normalized: %+v", res.ProofRecord)
				}
				if !strings.HasPrefix(res.InvitationURL, "http://") || !strings.Contains(res.InvitationURL, "?oob=") {
					t.Errorf("invitation URL %q", res.InvitationURL)
				}
				var inv map[string]any
				if err := json.Unmarshal(res.Invitation, &inv); err != nil || inv["@id"] != res.OutOfBandID || res.OutOfBandID == "" {
					t.Errorf("invitation %s, outOfBandId %q", res.Invitation, res.OutOfBandID)
				}

				// What the agent was sent.
				calls := fake.Calls()
				var create map[string]any
				for _, c := range calls {
					if c.Operation == "CreateRequest" {
						_ = json.Unmarshal(c.Body, &create)
					}
				}
				pf, _ := create["proofFormats"].(map[string]any)
				if _, ok := pf[rq.format]; !ok || len(pf) != 1 {
					t.Errorf("proofFormats %v, want only %s", pf, rq.format)
				}
				if create["invitationDid"] != "did:peer:2.reused" && rq.req.ReuseConnection {
					t.Errorf("invitationDid %v with reuseConnection", create["invitationDid"])
				}
				if _, ok := create["invitationDid"]; ok && !rq.req.ReuseConnection {
					t.Errorf("invitationDid sent without reuseConnection")
				}
				wantOps := []string{"CreateRequest", "GetAllProofs"}
				if org.Tenant != "" && !l.opts.Legacy {
					wantOps = append([]string{"GetTenantToken"}, wantOps...)
				}
				if got := fake.Operations(); strings.Join(got, ",") != strings.Join(wantOps, ",") {
					t.Errorf("operations %v, want %v", got, wantOps)
				}

				// Ownership was remembered.
				if got, err := b.RecordOrg(ctx, res.ProofRecord.ID); err != nil || got != "org-1" {
					t.Errorf("RecordOrg = %q, %v", got, err)
				}

				// Accept too early: the agent's 500 "No presentation message
				// found" is a conflict naming the state read back.
				_, err = b.AcceptPresentation(ctx, org, res.ProofRecord.ID)
				var conflict *backend.ConflictError
				if !errors.As(err, &conflict) || conflict.State != backend.StateRequestSent {
					t.Fatalf("early accept: %v, want conflict in request-sent", err)
				}
				// The holder answers; accept.
				if rq.req.RequestType == backend.RequestPresentationExchange {
					subject := map[string]any{"id": "did:example:holder", "dateOfBirth": "1990-01-01"}
					fake.Present(org.Tenant, res.ProofRecord.ID, ldpPresentation(fake.Challenge(res.ProofRecord.ID), subject))
				} else {
					fake.SetState(org.Tenant, res.ProofRecord.ID, backend.StatePresentationReceived)
				}
				done, err := b.AcceptPresentation(ctx, org, res.ProofRecord.ID)
				if err != nil {
					t.Fatalf("accept: %v", err)
				}
				if done.State != backend.StateDone || done.ID != res.ProofRecord.ID || done.OrgID != "org-1" ||
					done.IsVerified == nil || !*done.IsVerified {
					t.Errorf("accepted record %+v", done)
				}
				// Accepted twice: the agent names the state this time; 409 all the same.
				if _, err := b.AcceptPresentation(ctx, org, res.ProofRecord.ID); !errors.As(err, &conflict) || conflict.State != backend.StateDone {
					t.Fatalf("second accept: %v, want conflict in done", err)
				}
				// Unknown record.
				if _, err := b.AcceptPresentation(ctx, org, "0b8f6f0e-3f4e-4c8a-9a43-7f1f0d2f9e10"); !errors.Is(err, backend.ErrNotFound) {
					t.Errorf("unknown record: %v, want ErrNotFound", err)
				}
			})
		}
	}
}

func TestRecordOrgIn(t *testing.T) {
	opts := openapitest.CredoOptions{Tenants: []string{"tenant-a", "tenant-b"}}
	fake := openapitest.NewCredo(t, opts)
	b := newBackend(t, fake, opts, nil)
	ctx := context.Background()
	orgA := backend.Org{ID: "org-a", Tenant: "tenant-a"}
	orgB := backend.Org{ID: "org-b", Tenant: "tenant-b"}
	res, err := b.SendOutOfBandRequest(ctx, orgA, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		org  backend.Org
		id   string
		want bool
	}{
		{"remembered, owner", orgA, res.ProofRecord.ID, true},
		{"remembered, other org", orgB, res.ProofRecord.ID, false},
		{"unknown everywhere", orgB, "5c0b6a52-3c59-4b0e-8d0a-0e8b2f3b7f21", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := b.RecordOrgIn(ctx, tt.org, tt.id)
			if err != nil || got != tt.want {
				t.Errorf("RecordOrgIn = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	if _, err := b.RecordOrg(ctx, "5c0b6a52-3c59-4b0e-8d0a-0e8b2f3b7f21"); !errors.Is(err, backend.ErrNotFound) {
		t.Errorf("RecordOrg of an unknown record: %v", err)
	}

	// Forget the ownership document: the org's agent is asked, and only
	// the tenant that holds the record gets it.
	if err := b.owners.Forget(ctx, res.ProofRecord.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := b.RecordOrgIn(ctx, orgA, res.ProofRecord.ID); err != nil || !got {
		t.Errorf("agent-held record for its tenant: %v, %v", got, err)
	}
	if got, err := b.RecordOrgIn(ctx, orgB, res.ProofRecord.ID); err != nil || got {
		t.Errorf("agent-held record for another tenant: %v, %v", got, err)
	}
}

// TestErrorMapping drives every failure the agent can produce into the
// backend errors the handler maps to statuses.
func TestErrorMapping(t *testing.T) {
	upstream := func(status int) func(t *testing.T, err error) {
		return func(t *testing.T, err error) {
			t.Helper()
			var ue *backend.UpstreamError
			if !errors.As(err, &ue) || (status != 0 && ue.Status != status) {
				t.Fatalf("got %v, want UpstreamError %d", err, status)
			}
			if errors.Is(err, backend.ErrNotFound) {
				t.Fatalf("an upstream error must not read as not found")
			}
			if strings.Contains(ue.Message, "secret") || strings.Contains(ue.Message, "stack") {
				t.Fatalf("agent internals leaked into %q", ue.Message)
			}
		}
	}
	is := func(target error) func(t *testing.T, err error) {
		return func(t *testing.T, err error) {
			t.Helper()
			if !errors.Is(err, target) {
				t.Fatalf("got %v, want %v", err, target)
			}
		}
	}
	tests := []struct {
		name    string
		opts    openapitest.CredoOptions
		op      string // operation the fault goes to
		fault   openapitest.Fault
		accept  bool // exercise accept instead of create
		present bool // the holder presented before the accept
		mutate  func(*Backend)
		check   func(t *testing.T, err error)
		records int // records the agent must hold afterwards (-1: don't care)
	}{
		{name: "create 400", op: "CreateRequest", fault: openapitest.Fault{Status: 400, Body: `{"message":"secret stack"}`}, check: upstream(400), records: 0},
		{name: "create 422 validation", op: "CreateRequest", fault: openapitest.Fault{Status: 422, Body: `{"message":"Validation Failed"}`}, check: upstream(422), records: 0},
		{name: "create 404 is a route problem, not a record", op: "CreateRequest", fault: openapitest.Fault{Status: 404, Body: `{"message":"Not Found"}`}, check: upstream(404), records: 0},
		{name: "create 500", op: "CreateRequest", fault: openapitest.Fault{Status: 500, Body: `{"message":"CredoError: secret stack"}`}, check: upstream(500), records: 0},
		{name: "create 503 from a proxy", op: "CreateRequest", fault: openapitest.Fault{Status: 503, Body: "down", ContentType: "text/plain"}, check: upstream(503), records: 0},
		{name: "create timeout", op: "CreateRequest", fault: openapitest.Fault{Delay: 2 * time.Second}, check: is(backend.ErrTimeout), records: -1,
			mutate: func(b *Backend) { b.Timeout = caddy.Duration(200 * time.Millisecond) }},
		{name: "create hangup is not retried", op: "CreateRequest", fault: openapitest.Fault{Hangup: true}, check: upstream(0), records: 1},
		{name: "create answer too large", op: "CreateRequest", check: upstream(200), records: 1,
			mutate: func(b *Backend) { b.MaxResponseSize = 200 }},
		{name: "create answer not understood", op: "CreateRequest", fault: openapitest.Fault{Status: 200, Body: `{"invitationUrl":"x"}`}, check: upstream(200), records: 0},
		{name: "read-back fails after create", op: "GetAllProofs", fault: openapitest.Fault{Status: 500, Body: `{"message":"x"}`}, records: 1,
			check: func(t *testing.T, err error) {
				var orphan *agent.OrphanError
				if !errors.As(err, &orphan) || orphan.ThreadID == "" {
					t.Fatalf("got %v, want OrphanError with the thread id", err)
				}
				upstream(500)(t, err)
			}},
		{name: "wrong token", op: "CreateRequest", mutate: func(b *Backend) { b.Token = "nope" }, check: upstream(401), records: 0},
		{name: "accept 500 that is no state error", accept: true, present: true, op: "AcceptPresentation", fault: openapitest.Fault{Status: 500, Body: `{"message":"MessageSendingError: no endpoint"}`}, check: upstream(500), records: -1},
		{name: "accept error text is not trusted: the state read back decides", accept: true, op: "AcceptPresentation", records: -1,
			fault: openapitest.Fault{Status: 500, Body: `{"message":"something went wrong: CredoError: Proof record is in invalid state abandoned. Valid states are: presentation-received."}`},
			check: func(t *testing.T, err error) {
				var c *backend.ConflictError
				if !errors.As(err, &c) || c.State != "request-sent" {
					t.Fatalf("got %v, want conflict in request-sent", err)
				}
			}},
		{name: "accept refused and the state cannot be read: 502", accept: true, op: "GetProofById", records: -1,
			fault: openapitest.Fault{Status: 500, Body: `{"message":"x"}`}, check: upstream(500)},
		{name: "accept refused 401 is no state problem", accept: true, op: "AcceptPresentation", records: -1,
			fault: openapitest.Fault{Status: 401, Body: `{"message":"Unauthorized","details":"jwt expired"}`}, check: upstream(401)},
		{name: "tenant unknown to the agent: its token is issued, the first call fails", opts: openapitest.CredoOptions{Tenants: []string{"tenant-a"}}, op: "GetTenantToken",
			check: func(t *testing.T, err error) {
				upstream(401)(t, err)
				var ue *backend.UpstreamError
				if errors.As(err, &ue); !strings.Contains(ue.Message, "tenant") {
					t.Fatalf("message %q does not name the tenant as the problem", ue.Message)
				}
			}, records: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := openapitest.NewCredo(t, tt.opts)
			b := newBackend(t, fake, tt.opts, tt.mutate)
			org := backend.Org{ID: "org-1"}
			if len(tt.opts.Tenants) > 0 {
				org.Tenant = "tenant-zz" // not in the agent
			}
			ctx := context.Background()
			var err error
			if tt.accept {
				res, cerr := b.SendOutOfBandRequest(ctx, org, indyRequest())
				if cerr != nil {
					t.Fatal(cerr)
				}
				if tt.present {
					fake.SetState(org.Tenant, res.ProofRecord.ID, backend.StatePresentationReceived)
				}
				if tt.fault != (openapitest.Fault{}) {
					fake.Inject(tt.op, tt.fault)
				}
				_, err = b.AcceptPresentation(ctx, org, res.ProofRecord.ID)
			} else {
				if tt.fault != (openapitest.Fault{}) {
					fake.Inject(tt.op, tt.fault)
				}
				_, err = b.SendOutOfBandRequest(ctx, org, indyRequest())
			}
			tt.check(t, err)
			if tt.records >= 0 {
				if n := len(fake.Records(org.Tenant)); n != tt.records {
					t.Errorf("agent holds %d records, want %d", n, tt.records)
				}
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	fake := openapitest.NewCredo(t, openapitest.CredoOptions{})
	b := newBackend(t, fake, openapitest.CredoOptions{}, func(b *Backend) { b.URL = "http://" + addr })
	_, err = b.SendOutOfBandRequest(context.Background(), backend.Org{ID: "o"}, indyRequest())
	if !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("got %v, want ErrUnavailable", err)
	}
}

func TestTenantTokenRenewal(t *testing.T) {
	opts := openapitest.CredoOptions{Tenants: []string{"tenant-a"}}
	fake := openapitest.NewCredo(t, opts)
	b := newBackend(t, fake, opts, nil)
	org := backend.Org{ID: "org-a", Tenant: "tenant-a"}
	ctx := context.Background()
	if _, err := b.SendOutOfBandRequest(ctx, org, indyRequest()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SendOutOfBandRequest(ctx, org, peRequest()); err != nil {
		t.Fatal(err)
	}
	if n := fake.TokensIssued(); n != 1 {
		t.Fatalf("%d tokens fetched for two requests, want 1 (cached)", n)
	}
	fake.RevokeTenantTokens()
	if _, err := b.SendOutOfBandRequest(ctx, org, indyRequest()); err != nil {
		t.Fatalf("after the agent dropped the token: %v", err)
	}
	if n := fake.TokensIssued(); n != 2 {
		t.Fatalf("%d tokens fetched, want 2 (renewed once)", n)
	}
	if n := len(fake.Records("tenant-a")); n != 3 {
		t.Fatalf("agent holds %d records, want 3: the refused call must not have acted", n)
	}

	// A configured tenant token is used as is and never renewed.
	fake2 := openapitest.NewCredo(t, opts)
	b2 := newBackend(t, fake2, opts, func(b *Backend) {
		b.Token = ""
		b.TenantTokens = map[string]string{"tenant-a": "stale"}
	})
	_, err := b2.SendOutOfBandRequest(ctx, org, indyRequest())
	var ue *backend.UpstreamError
	if !errors.As(err, &ue) || ue.Status != 401 || fake2.TokensIssued() != 0 {
		t.Fatalf("static stale token: %v (tokens issued %d)", err, fake2.TokensIssued())
	}
}

// TestAPIKey: with api_key, proofgate mints the agent's token itself with
// POST /agent/token (the raw key in Authorization), for a dedicated agent
// and as the base wallet of a multi-tenant one, and mints a new one when
// the agent refuses it.
func TestAPIKey(t *testing.T) {
	for _, opts := range []openapitest.CredoOptions{{}, {Tenants: []string{"tenant-a"}}} {
		fake := openapitest.NewCredo(t, opts)
		b := newBackend(t, fake, opts, func(b *Backend) { b.Token, b.APIKey = "", openapitest.CredoAPIKey })
		org := backend.Org{ID: "o"}
		if len(opts.Tenants) > 0 {
			org.Tenant = "tenant-a"
		}
		ctx := context.Background()
		if _, err := b.SendOutOfBandRequest(ctx, org, indyRequest()); err != nil {
			t.Fatalf("tenants %v: %v", opts.Tenants, err)
		}
		var minted int
		for _, c := range fake.Calls() {
			if c.Operation == "GetAgentToken" {
				minted++
				if c.Header.Get("Authorization") != openapitest.CredoAPIKey {
					t.Errorf("token endpoint got Authorization %q, want the raw key", c.Header.Get("Authorization"))
				}
			}
		}
		if minted != 1 {
			t.Errorf("tenants %v: agent token minted %d times, want 1", opts.Tenants, minted)
		}
		if err := b.CheckOrg(ctx, org); err != nil {
			t.Errorf("CheckOrg: %v", err)
		}
	}

	// A refused minted token is minted again, once.
	fake := openapitest.NewCredo(t, openapitest.CredoOptions{})
	b := newBackend(t, fake, openapitest.CredoOptions{}, func(b *Backend) { b.Token, b.APIKey = "", openapitest.CredoAPIKey })
	b.agentTokens = agent.NewTokens(nil, func(ctx context.Context, s string) (string, error) {
		if len(fake.Calls()) == 0 {
			return "stale", nil
		}
		return b.fetchAgentToken(ctx, s)
	})
	if _, err := b.SendOutOfBandRequest(context.Background(), backend.Org{ID: "o"}, indyRequest()); err != nil {
		t.Fatalf("after a refused token: %v", err)
	}

	// A wrong key: 401 from the token endpoint, named as proofgate's credentials.
	bad := newBackend(t, fake, openapitest.CredoOptions{}, func(b *Backend) { b.Token, b.APIKey = "", "wrong" })
	_, err := bad.SendOutOfBandRequest(context.Background(), backend.Org{ID: "o"}, indyRequest())
	var ue *backend.UpstreamError
	if !errors.As(err, &ue) || ue.Status != 401 {
		t.Fatalf("wrong api key: %v", err)
	}
}
