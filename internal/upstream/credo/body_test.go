package credo

import (
	"encoding/json"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/benchutil"
)

// createBody is credo-controller's CreateProofRequestOobOptions as
// proofgate encoded it with encoding/json before buildCreate wrote it by
// hand: the reference for TestCreateBodyBytes.
type createBody struct {
	ProtocolVersion string `json:"protocolVersion"`
	ProofFormats    any    `json:"proofFormats"`
	GoalCode        string `json:"goalCode,omitempty"`
	ParentThreadID  string `json:"parentThreadId,omitempty"`
	AutoAcceptProof string `json:"autoAcceptProof,omitempty"`
	Comment         string `json:"comment,omitempty"`
	Label           string `json:"label,omitempty"`
	InvitationDID   string `json:"invitationDid,omitempty"`
}

func buildCreateWithEncodingJSON(b *Backend, org backend.Org, req backend.OOBRequest) ([]byte, error) {
	body := createBody{
		ProtocolVersion: req.ProtocolVersion, GoalCode: req.GoalCode, ParentThreadID: req.ParentThreadID,
		AutoAcceptProof: req.AutoAcceptProof, Comment: req.Comment, Label: req.Label,
	}
	if req.ReuseConnection {
		body.InvitationDID = b.InvitationDID
		if did, ok := b.OrgInvitationDIDs[org.ID]; ok {
			body.InvitationDID = did
		}
	}
	switch req.RequestType {
	case backend.RequestPresentationExchange:
		body.ProofFormats = map[string]any{
			"presentationExchange": map[string]any{"presentationDefinition": req.PresentationDefinition},
		}
	default:
		indy := *req.Indy
		if indy.RequestedAttributes == nil {
			indy.RequestedAttributes = map[string]backend.IndyAttribute{}
		}
		if indy.RequestedPredicates == nil {
			indy.RequestedPredicates = map[string]backend.IndyPredicate{}
		}
		body.ProofFormats = map[string]any{"indy": indy}
	}
	return json.Marshal(body)
}

// TestCreateBodyBytes: the hand-written create request is json.Marshal's,
// byte for byte.
func TestCreateBodyBytes(t *testing.T) {
	b := &Backend{InvitationDID: "did:web:verifier.example", OrgInvitationDIDs: map[string]string{"org-b": "did:peer:<&>"}}
	bare := indyRequest()
	bare.Indy = &backend.IndyProofRequest{Name: "n", Version: "1"}
	bare.AutoAcceptProof, bare.GoalCode, bare.Comment, bare.Label, bare.ParentThreadID, bare.ReuseConnection = "", "", "", "", "", false
	escaped := peRequest()
	escaped.PresentationDefinition = json.RawMessage("{\n  \"id\": \"<x>&\\u2028\u2028\",\n  \"input_descriptors\": [ ]\n}")
	escaped.Comment, escaped.Label = "a <b> & \"c\"", "\xff"
	for name, req := range map[string]backend.OOBRequest{
		"indy": indyRequest(), "pe": peRequest(), "bare": bare, "escaped": escaped,
	} {
		for _, org := range []backend.Org{{ID: "org-a"}, {ID: "org-b", Tenant: "t"}} {
			want, err := buildCreateWithEncodingJSON(b, org, req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.buildCreate(org, req)
			if err != nil || string(got) != string(want) {
				t.Errorf("%s for %s: %v\n got %s\nwant %s", name, org.ID, err, got, want)
			}
		}
	}
	bad := peRequest()
	bad.PresentationDefinition = json.RawMessage(`{"id":`)
	if _, err := b.buildCreate(backend.Org{ID: "org-a"}, bad); err == nil {
		t.Error("a definition that is not JSON was encoded")
	}
}

// BenchmarkBuildCreate is the create request of the bench's indy create.
func BenchmarkBuildCreate(b *testing.B) {
	be := &Backend{}
	req := indyRequest()
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		if _, err := be.buildCreate(backend.Org{ID: "org-a"}, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildCreateEncodingJSON is the same with encoding/json.
func BenchmarkBuildCreateEncodingJSON(b *testing.B) {
	be := &Backend{}
	req := indyRequest()
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		if _, err := buildCreateWithEncodingJSON(be, backend.Org{ID: "org-a"}, req); err != nil {
			b.Fatal(err)
		}
	}
}
