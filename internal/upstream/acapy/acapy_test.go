package acapy

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"regexp"
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
				"attr2": {Names: []string{"street", "city"}, Restrictions: []map[string]string{{"cred_def_id": "Th7MpTaRZVRYnPiabds81Y:3:CL:12:tag"}}},
			},
			RequestedPredicates: map[string]backend.IndyPredicate{
				"pred1": {Name: "age", PType: ">=", PValue: 18},
			},
		},
		AutoAcceptProof: "never", GoalCode: "request-proof", Comment: "please", Label: "Verifier",
	}
}

// A v1-style definition with an id ACA-Py would refuse and a schema list.
const peDefinition = `{"id":"first simple example","input_descriptors":[{"id":"citizenship_input","name":"US Passport","schema":[{"uri":"hub://did:foo:123/Collection/schema.us.gov/passport.json"}],"constraints":{"fields":[{"path":["$.credentialSubject.birth_date"],"filter":{"type":"string","pattern":"^\\d{4}"}}]}}]}`

func peRequest() backend.OOBRequest {
	return backend.OOBRequest{
		RequestType: backend.RequestPresentationExchange, ProtocolVersion: backend.ProtocolV2,
		PresentationDefinition: json.RawMessage(peDefinition), PresentationDefinitionID: "first simple example",
		AutoAcceptProof: "always",
	}
}

var uuid4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func newBackend(t *testing.T, fake *openapitest.ACAPy, mutate func(*Backend)) *Backend {
	t.Helper()
	b := &Backend{}
	b.URL = fake.URL
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

func bodyOf(t *testing.T, fake *openapitest.ACAPy, op string) map[string]any {
	t.Helper()
	for _, c := range fake.Calls() {
		if c.Operation == op {
			var m map[string]any
			if err := json.Unmarshal(c.Body, &m); err != nil {
				t.Fatalf("%s body: %v", op, err)
			}
			return m
		}
	}
	t.Fatalf("no %s call", op)
	return nil
}

// TestConformance runs both operations through single-tenant and
// multitenant agents, indy and DIF, against a fake ACA-Py that checks each
// request against ACA-Py's OpenAPI document.
func TestConformance(t *testing.T) {
	setups := []struct {
		name   string
		opts   openapitest.ACAPyOptions
		wallet string
		mutate func(*Backend, *openapitest.ACAPy)
		ops    []string
	}{
		{name: "single-tenant", opts: openapitest.ACAPyOptions{APIKey: "admin-key"},
			mutate: func(b *Backend, _ *openapitest.ACAPy) { b.APIKey = "admin-key" },
			ops:    []string{openapitest.ACAPyCreateRequest, openapitest.ACAPyCreateInvitation}},
		{name: "multitenant/fetched-token", opts: openapitest.ACAPyOptions{APIKey: "admin-key", Wallets: []string{"w1", "w2"}}, wallet: "w2",
			mutate: func(b *Backend, _ *openapitest.ACAPy) { b.APIKey = "admin-key"; b.FetchWalletTokens = true },
			ops:    []string{openapitest.ACAPyWalletToken, openapitest.ACAPyCreateRequest, openapitest.ACAPyCreateInvitation}},
		{name: "multitenant/static-token", opts: openapitest.ACAPyOptions{Wallets: []string{"w1", "w2"}}, wallet: "w2",
			mutate: func(b *Backend, f *openapitest.ACAPy) { b.TenantTokens = map[string]string{"w2": f.IssueToken("w2")} },
			ops:    []string{openapitest.ACAPyCreateRequest, openapitest.ACAPyCreateInvitation}},
	}
	for _, s := range setups {
		for _, rq := range []struct {
			name   string
			req    backend.OOBRequest
			format string
		}{{"indy", indyRequest(), "indy"}, {"presentationExchange", peRequest(), "dif"}} {
			t.Run(s.name+"/"+rq.name, func(t *testing.T) {
				fake := openapitest.NewACAPy(t, s.opts)
				b := newBackend(t, fake, func(b *Backend) {
					s.mutate(b, fake)
					b.InvitationDID = "public"
				})
				org := backend.Org{ID: "org-1", Tenant: s.wallet}
				ctx := context.Background()

				res, err := b.SendOutOfBandRequest(ctx, org, rq.req)
				if err != nil {
					t.Fatalf("SendOutOfBandRequest: %v", err)
				}
				recs := fake.Records(s.wallet)
				if len(recs) != 1 || recs[0]["pres_ex_id"] != res.ProofRecord.ID || recs[0]["thread_id"] != res.ProofRecord.ThreadID {
					t.Fatalf("record %+v, agent has %v", res.ProofRecord, recs)
				}
				pr := res.ProofRecord
				if pr.State != backend.StateRequestSent || pr.Role != "verifier" || pr.ProtocolVersion != "v2" ||
					pr.OrgID != "org-1" || pr.AutoAcceptProof != rq.req.AutoAcceptProof || pr.Metadata == nil {
					t.Errorf("record not normalized: %+v", pr)
				}
				if _, err := time.Parse(backend.TimeFormat, pr.CreatedAt); err != nil || len(pr.CreatedAt) != len(backend.TimeFormat) {
					t.Errorf("createdAt %q is not Credo's format", pr.CreatedAt)
				}
				var inv map[string]any
				if json.Unmarshal(res.Invitation, &inv) != nil || inv["@id"] != res.OutOfBandID || !strings.Contains(res.InvitationURL, "?oob=") {
					t.Errorf("invitation %s / %q / %q", res.Invitation, res.OutOfBandID, res.InvitationURL)
				}
				if got := fake.Operations(); strings.Join(got, ",") != strings.Join(s.ops, ",") {
					t.Errorf("operations %v, want %v", got, s.ops)
				}

				create := bodyOf(t, fake, openapitest.ACAPyCreateRequest)
				preq, _ := create["presentation_request"].(map[string]any)
				if _, ok := preq[rq.format]; !ok || len(preq) != 1 {
					t.Errorf("presentation_request %v, want only %s", preq, rq.format)
				}
				if av, ok := create["auto_verify"].(bool); !ok || av != (rq.req.AutoAcceptProof == "always") {
					t.Errorf("auto_verify %v for autoAcceptProof %s", create["auto_verify"], rq.req.AutoAcceptProof)
				}
				if rq.format == "dif" {
					dif := preq["dif"].(map[string]any)
					def := dif["presentation_definition"].(map[string]any)
					challenge, _ := dif["options"].(map[string]any)["challenge"].(string)
					if id, _ := def["id"].(string); !uuid4.MatchString(id) || !uuid4.MatchString(challenge) {
						t.Errorf("definition id %v / challenge %q not UUID4", def["id"], challenge)
					}
					schema := def["input_descriptors"].([]any)[0].(map[string]any)["schema"].(map[string]any)
					if schema["oneof_filter"] != false || len(schema["uri_groups"].([]any)) != 1 {
						t.Errorf("schema not in ACA-Py's object form: %v", schema)
					}
				}
				invBody := bodyOf(t, fake, openapitest.ACAPyCreateInvitation)
				att := invBody["attachments"].([]any)[0].(map[string]any)
				if att["id"] != res.ProofRecord.ID || att["type"] != "present-proof" || (invBody["use_public_did"] == true) != rq.req.ReuseConnection {
					t.Errorf("create-invitation body %v", invBody)
				}
				if _, ok := invBody["handshake_protocols"]; ok {
					t.Errorf("a connectionless request must not ask for a handshake")
				}

				if got, err := b.RecordOrg(ctx, pr.ID); err != nil || got != "org-1" {
					t.Errorf("RecordOrg = %q, %v", got, err)
				}
				_, err = b.AcceptPresentation(ctx, org, pr.ID)
				var conflict *backend.ConflictError
				if !errors.As(err, &conflict) || conflict.State != backend.StateRequestSent {
					t.Fatalf("early accept: %v, want conflict in request-sent", err)
				}
				fake.SetState(s.wallet, pr.ID, backend.StatePresentationReceived)
				done, err := b.AcceptPresentation(ctx, org, pr.ID)
				if err != nil {
					t.Fatalf("accept: %v", err)
				}
				if done.State != backend.StateDone || done.IsVerified == nil || !*done.IsVerified || done.OrgID != "org-1" {
					t.Errorf("accepted record %+v", done)
				}
				if _, err := b.AcceptPresentation(ctx, org, "0b8f6f0e-3f4e-4c8a-9a43-7f1f0d2f9e10"); !errors.Is(err, backend.ErrNotFound) {
					t.Errorf("unknown record: %v, want ErrNotFound", err)
				}
			})
		}
	}
}

func TestUnsupported(t *testing.T) {
	v1 := indyRequest()
	v1.ProtocolVersion = backend.ProtocolV1
	names := indyRequest()
	names.Indy.RequestedAttributes["attr2"] = backend.IndyAttribute{Names: []string{"a", "b"}}
	issuerID := indyRequest()
	issuerID.Indy.RequestedAttributes["attr2"] = backend.IndyAttribute{Name: "a", Restrictions: []map[string]string{{"issuer_id": "did:web:x"}}}
	for _, tt := range []struct {
		name  string
		req   backend.OOBRequest
		field string
	}{
		{"present-proof 1.0", v1, "protocolVersion"},
		{"names without restrictions", names, "proofFormats.indy.requested_attributes.attr2.restrictions"},
		{"restriction key ACA-Py refuses", issuerID, "proofFormats.indy.requested_attributes.attr2.restrictions[0].issuer_id"},
		{"filter keyword ACA-Py drops", peWithFilter(`{"type":"string","format":"date","formatMinimum":"2000-01-01","formatMaximum":"2010-01-01"}`), filterAt + ".formatMinimum"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{})
			b := newBackend(t, fake, nil)
			_, err := b.SendOutOfBandRequest(context.Background(), backend.Org{ID: "o"}, tt.req)
			var ue *agent.UnsupportedError
			if !errors.As(err, &ue) || ue.Field != tt.field {
				t.Fatalf("got %v, want UnsupportedError on %s", err, tt.field)
			}
			if n := len(fake.Calls()); n != 0 {
				t.Errorf("%d calls to the agent for a request it cannot serve", n)
			}
		})
	}
}

func TestErrorMapping(t *testing.T) {
	upstream := func(status int) func(*testing.T, error) {
		return func(t *testing.T, err error) {
			t.Helper()
			var ue *backend.UpstreamError
			if !errors.As(err, &ue) || (status != 0 && ue.Status != status) || errors.Is(err, backend.ErrNotFound) {
				t.Fatalf("got %v, want UpstreamError %d", err, status)
			}
			if strings.Contains(ue.Message, "secret") {
				t.Fatalf("agent internals leaked into %q", ue.Message)
			}
		}
	}
	conflict := func(state string) func(*testing.T, error) {
		return func(t *testing.T, err error) {
			t.Helper()
			var c *backend.ConflictError
			if !errors.As(err, &c) || c.State != state {
				t.Fatalf("got %v, want conflict in %s", err, state)
			}
		}
	}
	is := func(target error) func(*testing.T, error) {
		return func(t *testing.T, err error) {
			t.Helper()
			if !errors.Is(err, target) {
				t.Fatalf("got %v, want %v", err, target)
			}
		}
	}
	text := "text/plain; charset=utf-8"
	tests := []struct {
		name    string
		op      string
		fault   openapitest.Fault
		accept  bool
		state   string // record state before accept
		mutate  func(*Backend)
		check   func(*testing.T, error)
		records int
	}{
		{name: "create 400", op: openapitest.ACAPyCreateRequest, fault: openapitest.Fault{Status: 400, Body: "400: secret", ContentType: text}, check: upstream(400)},
		{name: "create 422 schema", op: openapitest.ACAPyCreateRequest, fault: openapitest.Fault{Status: 422, Body: `{"json":{"presentation_request":["secret"]}}`}, check: upstream(422)},
		{name: "create 500", op: openapitest.ACAPyCreateRequest, fault: openapitest.Fault{Status: 500, Body: "500: secret", ContentType: text}, check: upstream(500)},
		{name: "create timeout", op: openapitest.ACAPyCreateRequest, fault: openapitest.Fault{Delay: 2 * time.Second}, check: is(backend.ErrTimeout), records: -1,
			mutate: func(b *Backend) { b.Timeout = caddy.Duration(200 * time.Millisecond) }},
		{name: "create hangup is not retried", op: openapitest.ACAPyCreateRequest, fault: openapitest.Fault{Hangup: true}, check: upstream(0), records: 1},
		{name: "invitation fails: request deleted", op: openapitest.ACAPyCreateInvitation, fault: openapitest.Fault{Status: 500, Body: "500: x", ContentType: text}, check: upstream(500)},
		{name: "invitation 404: route problem, request deleted", op: openapitest.ACAPyCreateInvitation, fault: openapitest.Fault{Status: 404, Body: "404: Not Found", ContentType: text}, check: upstream(404)},
		{name: "invitation answer unusable: request deleted", op: openapitest.ACAPyCreateInvitation, fault: openapitest.Fault{Status: 200, Body: `{"state":"initial"}`}, check: upstream(200)},
		{name: "wrong api key", mutate: func(b *Backend) { b.APIKey = "nope" }, check: upstream(401)},
		{name: "verify 400 state message", accept: true, state: "abandoned", check: conflict("abandoned"), records: -1},
		{name: "verify 400 other wording, record in wrong state", accept: true, state: "request-sent", op: openapitest.ACAPyVerify,
			fault: openapitest.Fault{Status: 400, Body: `{"message":"bad state"}`}, check: conflict("request-sent"), records: -1},
		{name: "verify 400 not about state", accept: true, state: "presentation-received", op: openapitest.ACAPyVerify,
			fault: openapitest.Fault{Status: 400, Body: "400: secret", ContentType: text}, check: upstream(400), records: -1},
		{name: "verify 500", accept: true, state: "presentation-received", op: openapitest.ACAPyVerify,
			fault: openapitest.Fault{Status: 500, Body: "500: secret", ContentType: text}, check: upstream(500), records: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{APIKey: "admin-key"})
			b := newBackend(t, fake, func(b *Backend) {
				b.APIKey = "admin-key"
				if tt.mutate != nil {
					tt.mutate(b)
				}
			})
			org := backend.Org{ID: "org-1"}
			ctx := context.Background()
			var err error
			if tt.accept {
				res, cerr := b.SendOutOfBandRequest(ctx, org, indyRequest())
				if cerr != nil {
					t.Fatal(cerr)
				}
				fake.SetState("", res.ProofRecord.ID, tt.state)
				if tt.op != "" {
					fake.Inject(tt.op, tt.fault)
				}
				_, err = b.AcceptPresentation(ctx, org, res.ProofRecord.ID)
			} else {
				if tt.op != "" {
					fake.Inject(tt.op, tt.fault)
				}
				_, err = b.SendOutOfBandRequest(ctx, org, indyRequest())
			}
			tt.check(t, err)
			if tt.records >= 0 {
				if n := len(fake.Records("")); n != tt.records {
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
	fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{})
	b := newBackend(t, fake, func(b *Backend) { b.URL = "http://" + addr })
	_, err = b.SendOutOfBandRequest(context.Background(), backend.Org{ID: "o"}, indyRequest())
	if !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("got %v, want ErrUnavailable", err)
	}
}

func TestWalletTokens(t *testing.T) {
	opts := openapitest.ACAPyOptions{APIKey: "k", Wallets: []string{"w1"}}
	org := backend.Org{ID: "org-1", Tenant: "w1"}
	ctx := context.Background()

	t.Run("another client's token invalidates ours: renewed once", func(t *testing.T) {
		fake := openapitest.NewACAPy(t, opts)
		b := newBackend(t, fake, func(b *Backend) { b.APIKey = "k"; b.FetchWalletTokens = true })
		if _, err := b.SendOutOfBandRequest(ctx, org, indyRequest()); err != nil {
			t.Fatal(err)
		}
		fake.IssueToken("w1")
		if _, err := b.SendOutOfBandRequest(ctx, org, indyRequest()); err != nil {
			t.Fatalf("after invalidation: %v", err)
		}
		if n := fake.TokensIssued(); n != 3 {
			t.Errorf("%d tokens issued, want 3 (ours, theirs, our renewal)", n)
		}
		if n := len(fake.Records("w1")); n != 2 {
			t.Errorf("%d records, want 2", n)
		}
	})
	t.Run("configured token is never renewed", func(t *testing.T) {
		fake := openapitest.NewACAPy(t, opts)
		b := newBackend(t, fake, func(b *Backend) { b.APIKey = "k"; b.TenantTokens = map[string]string{"w1": "stale"} })
		_, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
		var ue *backend.UpstreamError
		if !errors.As(err, &ue) || ue.Status != 401 || fake.TokensIssued() != 0 {
			t.Fatalf("got %v, %d tokens issued", err, fake.TokensIssued())
		}
	})
	t.Run("no token and no fetching", func(t *testing.T) {
		fake := openapitest.NewACAPy(t, opts)
		b := newBackend(t, fake, func(b *Backend) { b.APIKey = "k" })
		if err := b.ValidateTenant("w1"); err == nil {
			t.Errorf("ValidateTenant accepted a wallet it cannot authenticate")
		}
		_, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
		var ue *backend.UpstreamError
		if !errors.As(err, &ue) || len(fake.Calls()) != 0 {
			t.Fatalf("got %v after %d calls", err, len(fake.Calls()))
		}
	})
	t.Run("unknown wallet", func(t *testing.T) {
		fake := openapitest.NewACAPy(t, opts)
		b := newBackend(t, fake, func(b *Backend) { b.APIKey = "k"; b.FetchWalletTokens = true })
		_, err := b.SendOutOfBandRequest(ctx, backend.Org{ID: "o", Tenant: "nope"}, indyRequest())
		var ue *backend.UpstreamError
		if !errors.As(err, &ue) || ue.Status != 404 || errors.Is(err, backend.ErrNotFound) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("RecordOrgIn asks the org's wallet", func(t *testing.T) {
		fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{APIKey: "k", Wallets: []string{"w1", "w2"}})
		b := newBackend(t, fake, func(b *Backend) { b.APIKey = "k"; b.FetchWalletTokens = true })
		res, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
		if err != nil {
			t.Fatal(err)
		}
		other := backend.Org{ID: "org-2", Tenant: "w2"}
		if ok, err := b.RecordOrgIn(ctx, other, res.ProofRecord.ID); err != nil || ok {
			t.Errorf("remembered record for another org: %v, %v", ok, err)
		}
		if err := b.owners.Forget(ctx, res.ProofRecord.ID); err != nil {
			t.Fatal(err)
		}
		if ok, err := b.RecordOrgIn(ctx, org, res.ProofRecord.ID); err != nil || !ok {
			t.Errorf("agent-held record, its wallet: %v, %v", ok, err)
		}
		if ok, err := b.RecordOrgIn(ctx, other, res.ProofRecord.ID); err != nil || ok {
			t.Errorf("agent-held record, another wallet: %v, %v", ok, err)
		}
	})
}
