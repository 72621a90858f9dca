package acapy

import (
	"encoding/json"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/benchutil"
)

// createRequest and createInvitation are ACA-Py's request bodies as
// proofgate encoded them with encoding/json before they were written by
// hand: the references for TestRequestBodyBytes.
type createRequest struct {
	PresentationRequest map[string]any `json:"presentation_request"`
	Comment             string         `json:"comment,omitempty"`
	AutoVerify          *bool          `json:"auto_verify,omitempty"`
	AutoRemove          bool           `json:"auto_remove"`
	Trace               bool           `json:"trace"`
}

type createInvitation struct {
	Attachments  []attachmentDef `json:"attachments"`
	MyLabel      string          `json:"my_label,omitempty"`
	Goal         string          `json:"goal,omitempty"`
	GoalCode     string          `json:"goal_code,omitempty"`
	UsePublicDID bool            `json:"use_public_did,omitempty"`
	UseDID       string          `json:"use_did,omitempty"`
}

type attachmentDef struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// createWithEncodingJSON is the reference encoding of buildCreate's
// request, with the challenge and definition id it drew.
func createWithEncodingJSON(req backend.OOBRequest, challenge, defID string) ([]byte, error) {
	body := createRequest{Comment: req.Comment}
	switch req.AutoAcceptProof {
	case "always", "contentApproved":
		t := true
		body.AutoVerify = &t
	case "never":
		f := false
		body.AutoVerify = &f
	}
	switch req.RequestType {
	case backend.RequestPresentationExchange:
		def, err := difDefinition(&req)
		if err != nil {
			return nil, err
		}
		def["id"] = defID
		body.PresentationRequest = map[string]any{"dif": map[string]any{
			"options": map[string]any{"challenge": challenge}, "presentation_definition": def,
		}}
	default:
		indy := *req.Indy
		if indy.RequestedAttributes == nil {
			indy.RequestedAttributes = map[string]backend.IndyAttribute{}
		}
		if indy.RequestedPredicates == nil {
			indy.RequestedPredicates = map[string]backend.IndyPredicate{}
		}
		body.PresentationRequest = map[string]any{"indy": indy}
	}
	return json.Marshal(body)
}

func invitationWithEncodingJSON(b *Backend, org backend.Org, req backend.OOBRequest, presExID string) ([]byte, error) {
	inv := createInvitation{
		Attachments: []attachmentDef{{ID: presExID, Type: "present-proof"}},
		MyLabel:     req.Label, GoalCode: req.GoalCode,
	}
	if req.GoalCode != "" {
		inv.Goal = req.Comment
		if inv.Goal == "" {
			inv.Goal = req.GoalCode
		}
	}
	if req.ReuseConnection {
		did := b.InvitationDID
		if d, ok := b.OrgInvitationDIDs[org.ID]; ok {
			did = d
		}
		switch did {
		case "":
		case "public":
			inv.UsePublicDID = true
		default:
			inv.UseDID = did
		}
	}
	return json.Marshal(inv)
}

// TestRequestBodyBytes: the hand-written request bodies are
// json.Marshal's, byte for byte.
func TestRequestBodyBytes(t *testing.T) {
	bare := indyRequest()
	bare.Indy = &backend.IndyProofRequest{Name: "n", Version: "1"}
	bare.AutoAcceptProof, bare.GoalCode, bare.Comment, bare.Label, bare.ReuseConnection = "", "", "", "", false
	escaped := peRequest()
	escaped.Comment, escaped.Label, escaped.GoalCode, escaped.AutoAcceptProof = "a <b> & \"c\"", "\xff\u2028", "<goal>", "contentApproved"
	escaped.PresentationDefinition = json.RawMessage(`{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","input_descriptors":[{"id":"<&>","schema":[{"uri":"x"}],"n":1.50}]}`)
	reqs := map[string]backend.OOBRequest{"indy": indyRequest(), "pe": peRequest(), "bare": bare, "escaped": escaped}
	for name, req := range reqs {
		got, err := buildCreate(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var drawn struct {
			PresentationRequest struct {
				DIF struct {
					Options struct {
						Challenge string `json:"challenge"`
					} `json:"options"`
					Definition struct {
						ID string `json:"id"`
					} `json:"presentation_definition"`
				} `json:"dif"`
			} `json:"presentation_request"`
		}
		if err := json.Unmarshal(got, &drawn); err != nil {
			t.Fatalf("%s: %s is not JSON: %v", name, got, err)
		}
		dif := drawn.PresentationRequest.DIF
		want, err := createWithEncodingJSON(req, dif.Options.Challenge, dif.Definition.ID)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s create-request: %v\n got %s\nwant %s", name, err, got, want)
		}
	}

	b := &Backend{InvitationDID: "did:web:verifier.example", OrgInvitationDIDs: map[string]string{"org-b": "public", "org-c": "did:peer:<&>"}}
	for name, req := range reqs {
		for _, org := range []backend.Org{{ID: "org-a"}, {ID: "org-b"}, {ID: "org-c"}} {
			const id = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
			got := b.buildInvitation(org, req, id)
			want, err := invitationWithEncodingJSON(b, org, req, id)
			if err != nil || string(got) != string(want) {
				t.Errorf("%s create-invitation for %s: %v\n got %s\nwant %s", name, org.ID, err, got, want)
			}
		}
	}
}

// BenchmarkBuildBodies is the two request bodies of the bench's indy
// create.
func BenchmarkBuildBodies(b *testing.B) {
	be := &Backend{}
	req := indyRequest()
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		if _, err := buildCreate(req); err != nil {
			b.Fatal(err)
		}
		_ = be.buildInvitation(backend.Org{ID: "org-a"}, req, "3fa85f64-5717-4562-b3fc-2c963f66afa6")
	}
}

// BenchmarkBuildBodiesEncodingJSON is the same with encoding/json.
func BenchmarkBuildBodiesEncodingJSON(b *testing.B) {
	be := &Backend{}
	req := indyRequest()
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		if _, err := createWithEncodingJSON(req, "", ""); err != nil {
			b.Fatal(err)
		}
		if _, err := invitationWithEncodingJSON(be, backend.Org{ID: "org-a"}, req, "3fa85f64-5717-4562-b3fc-2c963f66afa6"); err != nil {
			b.Fatal(err)
		}
	}
}
