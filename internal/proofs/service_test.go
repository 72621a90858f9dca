package proofs

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/didkey"
)

const (
	testPublicURL = "https://verifier.example.com/invite"
	testEndpoint  = "https://verifier.example.com/didcomm"
)

var testOrg = backend.Org{ID: "6b1e0c52-1f0e-4d0a-9c3e-2f5b8c7d9e01"}

func newTestService(t testing.TB, storage certmagic.Storage) *Service {
	t.Helper()
	s, err := New(storage, Config{PublicURL: testPublicURL, Endpoint: testEndpoint, Label: "Default Verifier"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func fileStorage(t testing.TB) *certmagic.FileStorage {
	return &certmagic.FileStorage{Path: t.TempDir()}
}

func indyRequest() backend.OOBRequest {
	return backend.OOBRequest{
		RequestType:     backend.RequestIndy,
		ProtocolVersion: backend.ProtocolV2,
		ReuseConnection: true,
		Indy: &backend.IndyProofRequest{
			Name:    "Employment check",
			Version: "1.0",
			RequestedAttributes: map[string]backend.IndyAttribute{
				"attr1": {Name: "name", Restrictions: []map[string]string{{"schema_id": "L5u3AaDjGhV2AjL6mwAjLm:2:employee:1.0"}}},
			},
			RequestedPredicates: map[string]backend.IndyPredicate{
				"pred1": {Name: "age", PType: ">=", PValue: 18},
			},
		},
		GoalCode: "request-proof",
		Comment:  "Please prove your employment",
	}
}

func peRequest() backend.OOBRequest {
	return backend.OOBRequest{
		RequestType:              backend.RequestPresentationExchange,
		ProtocolVersion:          backend.ProtocolV2,
		ReuseConnection:          true,
		PresentationDefinition:   json.RawMessage(`{"id":"32f54163-7166-48f1-93d8-ff217bdb0653","input_descriptors":[{"id":"wa_driver_license","name":"WA license","purpose":"conference","constraints":{"fields":[{"path":["$.credentialSubject.dateOfBirth"]}]}}]}`),
		PresentationDefinitionID: "32f54163-7166-48f1-93d8-ff217bdb0653",
		Label:                    "Conference desk",
		ParentThreadID:           "a5c9e1d8-6f0b-4b1e-9b7a-0c2d3e4f5a6b",
		AutoAcceptProof:          "always",
	}
}

// decoded is an invitation taken back apart from its URL.
type decoded struct {
	inv     map[string]any
	req     map[string]any // the attached request-presentation
	payload []byte         // the format attachment's content
}

func decodeURL(t *testing.T, longURL string) decoded {
	t.Helper()
	u, err := url.Parse(longURL)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Scheme + "://" + u.Host + u.Path; got != testPublicURL {
		t.Fatalf("URL base %s", got)
	}
	oob := u.Query().Get("oob")
	if strings.Contains(oob, "=") {
		t.Fatalf("oob parameter is padded: %s", oob)
	}
	raw, err := base64.RawURLEncoding.DecodeString(oob)
	if err != nil {
		t.Fatal(err)
	}
	var d decoded
	if err := json.Unmarshal(raw, &d.inv); err != nil {
		t.Fatal(err)
	}
	atts := d.inv["requests~attach"].([]any)
	if len(atts) != 1 {
		t.Fatalf("requests~attach %v", atts)
	}
	att := atts[0].(map[string]any)
	if att["@id"] != "request-0" || att["mime-type"] != "application/json" {
		t.Fatalf("attachment %v", att)
	}
	// The request is attached as data.json (see BuildInvitation).
	var ok bool
	if d.req, ok = att["data"].(map[string]any)["json"].(map[string]any); !ok {
		t.Fatalf("attachment data %v", att["data"])
	}
	fa := d.req["request_presentations~attach"].([]any)
	if len(fa) != 1 {
		t.Fatalf("request_presentations~attach %v", fa)
	}
	data := fa[0].(map[string]any)["data"].(map[string]any)
	if b, ok := data["base64"].(string); ok {
		if d.payload, err = base64.StdEncoding.DecodeString(b); err != nil {
			t.Fatal(err)
		}
	} else {
		d.payload, _ = json.Marshal(data["json"])
	}
	return d
}

var decimalNonce = regexp.MustCompile(`^[1-9][0-9]*$`)

func TestCreate(t *testing.T) {
	ctx := context.Background()
	v1 := indyRequest()
	v1.ProtocolVersion = backend.ProtocolV1
	v1.Label = "Own label"
	tests := []struct {
		name        string
		req         backend.OOBRequest
		wantType    string
		wantAttach  string
		wantFormat  string // "" for v1
		wantLabel   string
		checkFormat func(t *testing.T, payload []byte) string // returns nonce/challenge
	}{
		{"indy v2", indyRequest(), TypeRequestV2, AttachIDIndy, FormatIndyRequest, "Default Verifier", checkIndy},
		{"indy v1", v1, TypeRequestV1, AttachIDV1, "", "Own label", checkIndy},
		{"PE v2", peRequest(), TypeRequestV2, AttachIDDIF, FormatDIFRequest, "Conference desk", checkPE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestService(t, fileStorage(t))
			var nonces []string
			for i := 0; i < 2; i++ {
				res, err := s.Create(ctx, testOrg, tt.req)
				if err != nil {
					t.Fatal(err)
				}
				rec := res.ProofRecord
				if _, ok := ParseID(rec.ID); !ok {
					t.Fatalf("record id %q", rec.ID)
				}
				if rec.ThreadID == rec.ID || rec.State != backend.StateRequestSent || rec.Role != backend.RoleVerifier ||
					rec.OrgID != testOrg.ID || rec.ProtocolVersion != tt.req.ProtocolVersion || rec.Metadata == nil ||
					rec.ParentThreadID != tt.req.ParentThreadID || rec.AutoAcceptProof != tt.req.AutoAcceptProof ||
					rec.ConnectionID != "" || rec.IsVerified != nil {
					t.Fatalf("record %+v", rec)
				}
				if _, err := time.Parse(backend.TimeFormat, rec.CreatedAt); err != nil || rec.UpdatedAt != rec.CreatedAt {
					t.Fatalf("timestamps %q %q", rec.CreatedAt, rec.UpdatedAt)
				}
				if rid, _ := RecordIDForThreadID(rec.ThreadID); rid != rec.ID {
					t.Fatalf("thread id %s does not lead back to %s", rec.ThreadID, rec.ID)
				}

				d := decodeURL(t, res.InvitationURL)
				var invFromResult map[string]any
				if err := json.Unmarshal(res.Invitation, &invFromResult); err != nil {
					t.Fatal(err)
				}
				if !jsonEqual(invFromResult, d.inv) {
					t.Fatal("invitation in the result differs from the one in the URL")
				}
				// Invitation.
				inv := d.inv
				if inv["@type"] != TypeInvitation || inv["@id"] != res.OutOfBandID || inv["label"] != tt.wantLabel {
					t.Fatalf("invitation %v", inv)
				}
				if _, has := inv["handshake_protocols"]; has {
					t.Fatal("connectionless invitation has handshake_protocols")
				}
				if g, _ := inv["goal_code"].(string); g != tt.req.GoalCode {
					t.Fatalf("invitation goal_code %v, want %q", inv["goal_code"], tt.req.GoalCode)
				}
				if acc, _ := json.Marshal(inv["accept"]); string(acc) != `["didcomm/aip1","didcomm/aip2;env=rfc19"]` {
					t.Fatalf("accept %s", acc)
				}
				if tt.req.ParentThreadID != "" {
					if th, _ := inv["~thread"].(map[string]any); th["pthid"] != tt.req.ParentThreadID {
						t.Fatalf("invitation ~thread %v", inv["~thread"])
					}
				} else if _, has := inv["~thread"]; has {
					t.Fatal("invitation has ~thread without parentThreadId")
				}
				svcs := inv["services"].([]any)
				svc := svcs[0].(map[string]any)
				keys := svc["recipientKeys"].([]any)
				if len(svcs) != 1 || svc["id"] != "#inline-0" || svc["type"] != "did-communication" ||
					svc["serviceEndpoint"] != testEndpoint || len(keys) != 1 || len(svc["routingKeys"].([]any)) != 0 {
					t.Fatalf("service %v", svc)
				}
				pub, err := didkey.Decode(keys[0].(string))
				if err != nil {
					t.Fatalf("recipient key %v: %v", keys[0], err)
				}

				// Request-presentation.
				req := d.req
				th := req["~thread"].(map[string]any)
				if req["@type"] != tt.wantType || req["@id"] == rec.ThreadID || th["thid"] != rec.ThreadID || th["pthid"] != res.OutOfBandID {
					t.Fatalf("request %v", req)
				}
				if c, _ := req["comment"].(string); c != tt.req.Comment {
					t.Fatalf("comment %v", req["comment"])
				}
				sd := req["~service"].(map[string]any)
				if sd["serviceEndpoint"] != testEndpoint || len(sd["routingKeys"].([]any)) != 0 ||
					sd["recipientKeys"].([]any)[0] != didkey.Verkey(pub) {
					t.Fatalf("~service %v (want verkey %s)", sd, didkey.Verkey(pub))
				}
				att := req["request_presentations~attach"].([]any)[0].(map[string]any)
				if att["@id"] != tt.wantAttach || att["mime-type"] != "application/json" {
					t.Fatalf("format attachment %v", att)
				}
				if tt.wantFormat != "" {
					fmts, _ := json.Marshal(req["formats"])
					if want := `[{"attach_id":"` + tt.wantAttach + `","format":"` + tt.wantFormat + `"}]`; string(fmts) != want {
						t.Fatalf("formats %s, want %s", fmts, want)
					}
					if g, _ := req["goal_code"].(string); req["will_confirm"] != true || g != tt.req.GoalCode {
						t.Fatalf("will_confirm/goal_code %v %v", req["will_confirm"], req["goal_code"])
					}
				} else {
					for _, f := range []string{"formats", "will_confirm", "goal_code"} {
						if _, has := req[f]; has {
							t.Fatalf("v1 request has %s", f)
						}
					}
				}
				nonce := tt.checkFormat(t, d.payload)
				nonces = append(nonces, nonce)

				// What is stored matches what was returned.
				doc, err := s.Load(ctx, rec.ID)
				if err != nil {
					t.Fatal(err)
				}
				if doc.Nonce != nonce || doc.InvitationURL != res.InvitationURL || doc.InvitationID != res.OutOfBandID ||
					!jsonEqualRaw(doc.Invitation, res.Invitation) || doc.Key.Kind != KeyOrg || doc.Key.Seed != nil {
					t.Fatalf("stored doc %+v", doc)
				}
				if got, err := s.LoadRecord(ctx, strings.ToUpper(rec.ID)); err != nil || got.ID != rec.ID {
					t.Fatalf("LoadRecord upper case: %v", err)
				}
				inv2, url2, err := s.Invitation(ctx, rec.ID)
				if err != nil || url2 != res.InvitationURL || !jsonEqualRaw(inv2, res.Invitation) {
					t.Fatalf("Invitation: %v", err)
				}
			}
			if nonces[0] == nonces[1] {
				t.Fatalf("nonce/challenge repeated: %s", nonces[0])
			}
		})
	}
}

func checkIndy(t *testing.T, payload []byte) string {
	t.Helper()
	var pr struct {
		Name                string                     `json:"name"`
		Version             string                     `json:"version"`
		Nonce               string                     `json:"nonce"`
		RequestedAttributes map[string]json.RawMessage `json:"requested_attributes"`
		RequestedPredicates map[string]json.RawMessage `json:"requested_predicates"`
	}
	if err := json.Unmarshal(payload, &pr); err != nil {
		t.Fatal(err)
	}
	if !decimalNonce.MatchString(pr.Nonce) || len(pr.Nonce) > 25 {
		t.Fatalf("nonce %q", pr.Nonce)
	}
	if pr.Name != "Employment check" || pr.Version != "1.0" ||
		string(pr.RequestedAttributes["attr1"]) != `{"name":"name","restrictions":[{"schema_id":"L5u3AaDjGhV2AjL6mwAjLm:2:employee:1.0"}]}` ||
		string(pr.RequestedPredicates["pred1"]) != `{"name":"age","p_type":">=","p_value":18}` {
		t.Fatalf("proof request %s", payload)
	}
	return pr.Nonce
}

func checkPE(t *testing.T, payload []byte) string {
	t.Helper()
	var pe struct {
		Options struct {
			Challenge string `json:"challenge"`
			Domain    string `json:"domain"`
		} `json:"options"`
		PresentationDefinition map[string]any `json:"presentation_definition"`
	}
	if err := json.Unmarshal(payload, &pe); err != nil {
		t.Fatal(err)
	}
	if _, ok := ParseID(pe.Options.Challenge); !ok {
		t.Fatalf("challenge %q is not a v4 UUID", pe.Options.Challenge)
	}
	if pe.Options.Domain != "verifier.example.com" || pe.PresentationDefinition["id"] != "32f54163-7166-48f1-93d8-ff217bdb0653" {
		t.Fatalf("DIF request %s", payload)
	}
	return pe.Options.Challenge
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func jsonEqualRaw(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && jsonEqual(x, y)
}

func recipientKey(t *testing.T, inv json.RawMessage) string {
	t.Helper()
	var i Invitation
	if err := json.Unmarshal(inv, &i); err != nil {
		t.Fatal(err)
	}
	return i.Services[0].RecipientKeys[0]
}

func TestOrgKeyStableAcrossCallsAndRestart(t *testing.T) {
	ctx := context.Background()
	st := fileStorage(t)
	s := newTestService(t, st)
	a, err := s.Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Create(ctx, testOrg, peRequest())
	if err != nil {
		t.Fatal(err)
	}
	key := recipientKey(t, a.Invitation)
	if recipientKey(t, b.Invitation) != key {
		t.Fatal("org key changed between calls")
	}
	other, err := s.Create(ctx, backend.Org{ID: "another-org"}, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	if recipientKey(t, other.Invitation) == key {
		t.Fatal("two orgs share a key")
	}

	// A new instance on the same storage (a restart) uses the same key.
	restarted := newTestService(t, st)
	c, err := restarted.Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	if recipientKey(t, c.Invitation) != key {
		t.Fatal("org key changed across a restart")
	}
	// And it can decrypt for it: the key is found by its verkey.
	pub, _ := didkey.Decode(key)
	r, err := restarted.RecipientKey(ctx, didkey.Verkey(pub))
	if err != nil || r.OrgID != testOrg.ID || r.RecordID != "" || !pub.Equal(r.Key.Public()) {
		t.Fatalf("RecipientKey = %+v, %v", r, err)
	}
	// The private key is not in the record.
	raw, err := st.Load(ctx, "proofgate/records/"+c.ProofRecord.ID+".json")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"seed"`) {
		t.Fatal("record of an org-key request holds a seed")
	}
}

func TestOrgKeyConcurrentFirstUse(t *testing.T) {
	ctx := context.Background()
	st := fileStorage(t)
	// Two instances on one storage, each with several concurrent callers.
	services := []*Service{newTestService(t, st), newTestService(t, st)}
	const n = 8
	keys := make([]string, 2*n)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := services[i%2].OrgKey(ctx, "org-race")
			if err != nil {
				t.Error(err)
				return
			}
			keys[i] = didkey.Verkey(k.Public().(ed25519.PublicKey))
		}()
	}
	wg.Wait()
	for _, k := range keys {
		if k != keys[0] {
			t.Fatalf("concurrent first use created several keys: %v", keys)
		}
	}
	names, err := st.List(ctx, "proofgate/keys", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 2 { // the key and the org's pointer to it
		t.Fatalf("key documents %v", names)
	}
}

func TestFreshKeyPerRequest(t *testing.T) {
	ctx := context.Background()
	st := fileStorage(t)
	s := newTestService(t, st)
	orgKey, err := s.OrgKey(ctx, testOrg.ID)
	if err != nil {
		t.Fatal(err)
	}
	req := indyRequest()
	req.ReuseConnection = false
	seen := map[string]bool{didkey.Encode(orgKey.Public().(ed25519.PublicKey)): true}
	for i := 0; i < 3; i++ {
		res, err := s.Create(ctx, testOrg, req)
		if err != nil {
			t.Fatal(err)
		}
		key := recipientKey(t, res.Invitation)
		if seen[key] {
			t.Fatalf("key %s reused", key)
		}
		seen[key] = true
		pub, _ := didkey.Decode(key)
		if RecordIDForKey(pub).String() != res.ProofRecord.ID {
			t.Fatal("record id is not derived from its key")
		}
		// The private key is kept, in the record, and found by its verkey
		// after a restart.
		r, err := newTestService(t, st).RecipientKey(ctx, didkey.Verkey(pub))
		if err != nil || r.RecordID != res.ProofRecord.ID || r.OrgID != testOrg.ID || !pub.Equal(r.Key.Public()) {
			t.Fatalf("RecipientKey = %+v, %v", r, err)
		}
	}
	stranger, _, _ := didkey.Generate()
	for _, vk := range []string{didkey.Verkey(stranger), "junk", ""} {
		if _, err := s.RecipientKey(ctx, vk); !errors.Is(err, backend.ErrNotFound) {
			t.Errorf("RecipientKey(%q) = %v, want ErrNotFound", vk, err)
		}
	}
}

func TestRecordJSON(t *testing.T) {
	ctx := context.Background()
	s := newTestService(t, fileStorage(t))
	fixed := time.Date(2026, 11, 22, 9, 30, 0, 123456789, time.FixedZone("X", 3600))
	s.cfg.Now = func() time.Time { return fixed }
	res, err := s.Create(ctx, testOrg, peRequest())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.ProofRecord)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{},"id":"` + res.ProofRecord.ID + `","createdAt":"2026-11-22T08:30:00.123Z","updatedAt":"2026-11-22T08:30:00.123Z",` +
		`"threadId":"` + res.ProofRecord.ThreadID + `","parentThreadId":"a5c9e1d8-6f0b-4b1e-9b7a-0c2d3e4f5a6b","protocolVersion":"v2",` +
		`"state":"request-sent","role":"verifier","orgId":"` + testOrg.ID + `","autoAcceptProof":"always"}`
	if string(b) != want {
		t.Fatalf("record JSON\n got %s\nwant %s", b, want)
	}
}

func TestAccept(t *testing.T) {
	ctx := context.Background()
	s := newTestService(t, fileStorage(t))
	res, err := s.Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	id := res.ProofRecord.ID

	var ce *backend.ConflictError
	if _, err := s.Accept(ctx, testOrg, id); !errors.As(err, &ce) || ce.State != backend.StateRequestSent {
		t.Fatalf("accept in request-sent: %v", err)
	}
	for _, bad := range []string{"8f14e45f-ceea-467f-a0e6-6c3b2f1d0a9e", "not-a-uuid", ""} {
		if _, err := s.Accept(ctx, testOrg, bad); !errors.Is(err, backend.ErrNotFound) {
			t.Fatalf("accept unknown %q: %v", bad, err)
		}
		if _, err := s.RecordOrg(ctx, bad); !errors.Is(err, backend.ErrNotFound) {
			t.Fatalf("RecordOrg unknown %q: %v", bad, err)
		}
	}
	if org, err := s.RecordOrg(ctx, id); err != nil || org != testOrg.ID {
		t.Fatalf("RecordOrg = %q, %v", org, err)
	}

	presentation := json.RawMessage(`{"@type":"https://didcomm.org/present-proof/2.0/presentation","@id":"p1"}`)
	theirs := &ServiceDecorator{RecipientKeys: []string{"4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS"}, RoutingKeys: []string{}, ServiceEndpoint: "https://wallet.example/in"}
	rec, err := s.MarkPresentationReceived(ctx, id, Presentation{Message: presentation, TheirService: theirs, Verified: true})
	if err != nil || rec.State != backend.StatePresentationReceived || rec.IsVerified == nil || !*rec.IsVerified {
		t.Fatalf("MarkPresentationReceived = %+v, %v", rec, err)
	}
	if _, err := s.MarkPresentationReceived(ctx, id, Presentation{}); !errors.As(err, &ce) || ce.State != backend.StatePresentationReceived {
		t.Fatalf("second presentation: %v", err)
	}

	// Another org's caller cannot accept it, and learns nothing.
	if _, err := s.Accept(ctx, backend.Org{ID: "intruder"}, id); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("accept by another org: %v", err)
	}

	s.cfg.Now = func() time.Time { return time.Now().Add(time.Second) }
	rec, err = s.Accept(ctx, testOrg, id)
	if err != nil || rec.State != backend.StateDone || rec.UpdatedAt == rec.CreatedAt {
		t.Fatalf("accept: %+v, %v", rec, err)
	}
	// A restart sees done, with the ack on the record's thread.
	doc, err := newTestService(t, s.storage).Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var ack Ack
	if err := json.Unmarshal(doc.Ack, &ack); err != nil {
		t.Fatal(err)
	}
	if doc.Record.State != backend.StateDone || ack.Type != TypeAckV2 || ack.Status != "OK" ||
		ack.Thread.ThID != rec.ThreadID || ack.Thread.PThID != res.OutOfBandID ||
		string(doc.Presentation) != string(presentation) || doc.TheirService.ServiceEndpoint != theirs.ServiceEndpoint {
		t.Fatalf("stored after accept: %+v", doc)
	}
	if _, err := s.Accept(ctx, testOrg, id); !errors.As(err, &ce) || ce.State != backend.StateDone {
		t.Fatalf("second accept: %v", err)
	}
	if _, err := s.Abandon(ctx, id, "late problem report"); !errors.As(err, &ce) || ce.State != backend.StateDone {
		t.Fatalf("abandon done record: %v", err)
	}
}

func TestAbandon(t *testing.T) {
	ctx := context.Background()
	s := newTestService(t, fileStorage(t))
	res, err := s.Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Abandon(ctx, res.ProofRecord.ID, "problem report: declined")
	if err != nil || rec.State != backend.StateAbandoned || rec.ErrorMessage != "problem report: declined" {
		t.Fatalf("Abandon = %+v, %v", rec, err)
	}
	var ce *backend.ConflictError
	if _, err := s.MarkPresentationReceived(ctx, res.ProofRecord.ID, Presentation{}); !errors.As(err, &ce) || ce.State != backend.StateAbandoned {
		t.Fatalf("presentation after abandon: %v", err)
	}
}

func TestConcurrentAccepts(t *testing.T) {
	tests := []struct {
		name      string
		cluster   bool
		instances int // Services on the same storage
	}{
		{"one instance", false, 1},
		{"config reload: old and new instance", false, 2},
		{"cluster locks", true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st := fileStorage(t)
			var instances []*Service
			for range tt.instances {
				s := newTestService(t, st)
				s.cfg.ClusterLocks = tt.cluster
				instances = append(instances, s)
			}
			res, err := instances[0].Create(ctx, testOrg, indyRequest())
			if err != nil {
				t.Fatal(err)
			}
			id := res.ProofRecord.ID
			if _, err := instances[0].MarkPresentationReceived(ctx, id, Presentation{Verified: true}); err != nil {
				t.Fatal(err)
			}
			const n = 16
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = instances[i%len(instances)].Accept(ctx, testOrg, id)
				}()
			}
			wg.Wait()
			wins := 0
			for _, err := range errs {
				var ce *backend.ConflictError
				switch {
				case err == nil:
					wins++
				case errors.As(err, &ce) && ce.State == backend.StateDone:
				default:
					t.Fatalf("accept: %v", err)
				}
			}
			if wins != 1 {
				t.Fatalf("%d accepts won, want exactly 1", wins)
			}
		})
	}
}

// failingStorage is file storage whose writes of proof records fail; with
// afterWrite the write happens and then reports failure (a timeout on the
// reply).
type failingStorage struct {
	*certmagic.FileStorage
	afterWrite bool
}

var errDiskFull = errors.New("disk full")

func (f *failingStorage) Store(ctx context.Context, key string, value []byte) error {
	if strings.HasPrefix(key, "proofgate/records/") {
		if f.afterWrite {
			if err := f.FileStorage.Store(ctx, key, value); err != nil {
				return err
			}
		}
		return errDiskFull
	}
	return f.FileStorage.Store(ctx, key, value)
}

func TestCreateFailureLeavesNoRecord(t *testing.T) {
	for _, afterWrite := range []bool{false, true} {
		for _, reuse := range []bool{true, false} {
			ctx := context.Background()
			dir := t.TempDir()
			st := &failingStorage{FileStorage: &certmagic.FileStorage{Path: dir}, afterWrite: afterWrite}
			s := newTestService(t, st)
			req := indyRequest()
			req.ReuseConnection = reuse
			_, err := s.Create(ctx, testOrg, req)
			if !errors.Is(err, backend.ErrUnavailable) || !errors.Is(err, errDiskFull) {
				t.Fatalf("afterWrite=%v reuse=%v: %v", afterWrite, reuse, err)
			}
			entries, err := os.ReadDir(filepath.Join(dir, "proofgate", "records"))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			if len(entries) != 0 {
				t.Fatalf("afterWrite=%v reuse=%v: records left behind: %v", afterWrite, reuse, entries)
			}
		}
	}
}

func TestTransitionWriteFailureKeepsState(t *testing.T) {
	ctx := context.Background()
	st := &failingStorage{FileStorage: fileStorage(t)}
	good := newTestService(t, st.FileStorage)
	res, err := good.Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := good.MarkPresentationReceived(ctx, res.ProofRecord.ID, Presentation{Verified: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := newTestService(t, st).Accept(ctx, testOrg, res.ProofRecord.ID); !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("accept with failing storage: %v", err)
	}
	rec, err := good.LoadRecord(ctx, res.ProofRecord.ID)
	if err != nil || rec.State != backend.StatePresentationReceived {
		t.Fatalf("after failed accept: %+v, %v", rec, err)
	}
}

func BenchmarkCreateIndy(b *testing.B) {
	ctx := context.Background()
	s := newTestService(b, fileStorage(b))
	req := indyRequest()
	if _, err := s.Create(ctx, testOrg, req); err != nil { // creates the org key
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Create(ctx, testOrg, req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCreateIndyFreshKey(b *testing.B) {
	ctx := context.Background()
	s := newTestService(b, fileStorage(b))
	req := indyRequest()
	req.ReuseConnection = false
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Create(ctx, testOrg, req); err != nil {
			b.Fatal(err)
		}
	}
}
