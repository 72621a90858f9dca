package proofs

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"strings"
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
		AutoAcceptProof:          "never", // tests accept by hand (autoaccept_test.go covers the others)
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
				// ACA-Py takes no goal_code without a goal.
				if g, _ := inv["goal_code"].(string); g != tt.req.GoalCode || inv["goal"] != inv["goal_code"] {
					t.Fatalf("invitation goal_code %v, goal %v, want both %q", inv["goal_code"], inv["goal"], tt.req.GoalCode)
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
		`"state":"request-sent","role":"verifier","orgId":"` + testOrg.ID + `","autoAcceptProof":"never"}`
	if string(b) != want {
		t.Fatalf("record JSON\n got %s\nwant %s", b, want)
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
