package validate

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
)

func TestNormalizedIndy(t *testing.T) {
	v := newValidator(t, Options{})
	body := with(t, indyBody,
		set("proofFormats.indy.non_revoked", raw(`{"to": 1700000000}`)),
		set(ri+".non_revoked", raw(`{}`)),
		set("emailId", raw(`["alice@example.com"]`)),
		set("autoAcceptProof", raw(`{}`)),
		set("goalCode", "aries.vc.verify"),
		set("label", "Verifier"),
		set("comment", "please"),
		set("parentThreadId", "p-1"),
	)
	req, err := v.OOB("indy", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	to := int64(1700000000)
	want := backend.OOBRequest{
		RequestType:     backend.RequestIndy,
		ProtocolVersion: backend.ProtocolV2,
		IsShortenURL:    true,
		ReuseConnection: true,
		Indy: &backend.IndyProofRequest{
			Name:    "proof of age",
			Version: "1.0",
			RequestedAttributes: map[string]backend.IndyAttribute{
				"attr1": {Name: "name", Restrictions: []map[string]string{{
					"schema_id":   "WgWxqztrNooG92RXvxSTWv:2:schema_name:1.0",
					"cred_def_id": "WgWxqztrNooG92RXvxSTWv:3:CL:20:tag",
				}}},
			},
			RequestedPredicates: map[string]backend.IndyPredicate{
				"pred1": {Name: "age", PType: ">=", PValue: 18},
			},
			NonRevoked: &backend.NonRevoked{To: &to},
		},
		Emails:         []string{"alice@example.com"},
		GoalCode:       "aries.vc.verify",
		Comment:        "please",
		Label:          "Verifier",
		ParentThreadID: "p-1",
	}
	if !reflect.DeepEqual(req, want) {
		t.Errorf("got  %+v\nwant %+v", req, want)
	}

	// Empty maps stay maps: agents want {} rather than null.
	body = with(t, indyBody, del("proofFormats.indy.requested_predicates"))
	req, err = v.OOB("indy", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(req.Indy)
	if want := `"requested_predicates":{}`; !json.Valid(b) || !strings.Contains(string(b), want) {
		t.Errorf("indy JSON %s lacks %s", b, want)
	}
}

func TestDefaults(t *testing.T) {
	v := newValidator(t, Options{})
	tests := []struct {
		name     string
		edits    []edit
		reuse    bool
		protocol string
	}{
		{"defaults", nil, true, "v2"},
		{"explicit", []edit{set("reuseConnection", false), set("protocolVersion", "v1")}, false, "v1"},
		{"nulls", []edit{set("reuseConnection", nil), set("protocolVersion", nil)}, true, "v2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := v.OOB("indy", []byte(with(t, indyBody, tt.edits...)))
			if err != nil {
				t.Fatal(err)
			}
			if req.ReuseConnection != tt.reuse || req.ProtocolVersion != tt.protocol {
				t.Errorf("reuseConnection %v protocolVersion %q, want %v %q", req.ReuseConnection, req.ProtocolVersion, tt.reuse, tt.protocol)
			}
		})
	}
}

// TestSpellings: the listed array form, the object form and the sample's
// camelCase form give the same definition.
func TestSpellings(t *testing.T) {
	v := newValidator(t, Options{})
	descriptors := `[{"id":"citizenship","name":"License","purpose":"Name","constraints":{"fields":[{"path":["$.credentialSubject.givenName"],"filter":{"type":"string","pattern":"<b>&"}}]}}]`
	spellings := map[string]string{
		"list":              `[{"id":"8d9f1b9e-7a4b-4c8e-9f35-5f0a3d2b1c6e","input_descriptors":` + descriptors + `}]`,
		"object":            `{"id":"8d9f1b9e-7a4b-4c8e-9f35-5f0a3d2b1c6e","input_descriptors":` + descriptors + `}`,
		"camelCase":         `{"id":"8d9f1b9e-7a4b-4c8e-9f35-5f0a3d2b1c6e","inputDescriptors":` + descriptors + `}`,
		"list of camelCase": `[{"id":"8d9f1b9e-7a4b-4c8e-9f35-5f0a3d2b1c6e","inputDescriptors":` + descriptors + `}]`,
	}
	// Keys come out sorted; HTML characters stay as the caller wrote them.
	want := `{"id":"8d9f1b9e-7a4b-4c8e-9f35-5f0a3d2b1c6e","input_descriptors":[{"constraints":{"fields":[{"filter":{"pattern":"<b>&","type":"string"},"path":["$.credentialSubject.givenName"]}]},"id":"citizenship","name":"License","purpose":"Name"}]}`
	for name, pd := range spellings {
		t.Run(name, func(t *testing.T) {
			req, err := v.OOB("presentationExchange", []byte(with(t, peBody, set("presentationDefinition", raw(pd)))))
			if err != nil {
				t.Fatal(err)
			}
			if string(req.PresentationDefinition) != want {
				t.Errorf("definition\n got  %s\n want %s", req.PresentationDefinition, want)
			}
			if req.PresentationDefinitionID != "8d9f1b9e-7a4b-4c8e-9f35-5f0a3d2b1c6e" {
				t.Errorf("id %q", req.PresentationDefinitionID)
			}
			if req.RequestType != backend.RequestPresentationExchange || req.Indy != nil {
				t.Errorf("request %+v", req)
			}
		})
	}

	// Problems are named in the caller's own spelling.
	_, err := v.OOB("presentationExchange", []byte(with(t, peBody, set("presentationDefinition", raw(`{"inputDescriptors":[{"id":"a"}]}`)))))
	sameProblems(t, problems(t, err), []string{"presentationDefinition.inputDescriptors[0].constraints: is required"})
	_, err = v.OOB("presentationExchange", []byte(with(t, peBody, set("presentationDefinition", raw(`[{"inputDescriptors":{}}]`)))))
	sameProblems(t, problems(t, err), []string{"presentationDefinition[0].inputDescriptors: must be an array"})
	_, err = v.OOB("presentationExchange", []byte(with(t, peBody, set("presentationDefinition", raw(`[{"input_descriptors":[]}]`)))))
	sameProblems(t, problems(t, err), []string{"presentationDefinition[0].input_descriptors: a proof request must ask for at least one input descriptor"})
}

func TestMissingDefinitionID(t *testing.T) {
	v := newValidator(t, Options{})
	body := with(t, peBody, del("presentationDefinition.id"))
	seen := map[string]bool{}
	for range 2 {
		req, err := v.OOB("presentationExchange", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		var def struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(req.PresentationDefinition, &def); err != nil {
			t.Fatal(err)
		}
		if _, err := uuid.Parse(def.ID); err != nil || len(def.ID) != 36 {
			t.Errorf("generated id %q is not a UUID", def.ID)
		}
		if def.ID != req.PresentationDefinitionID {
			t.Errorf("PresentationDefinitionID %q, id in the definition %q", req.PresentationDefinitionID, def.ID)
		}
		seen[def.ID] = true
	}
	if len(seen) != 2 {
		t.Error("two requests got the same generated id")
	}
}
