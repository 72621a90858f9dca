package credo

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	credoenv "github.com/proofgate/proofgate/internal/testenv/credo"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// realFormData is one line of holder/formdata.js: a real Credo 0.5.19
// verifier's record after a real Credo holder answered its
// presentation-exchange request, with agent.proofs.getFormatData's answer,
// which credo-controller serves as GET /didcomm/proofs/{id}/form-data.
type realFormData struct {
	Case       string          `json:"case"`
	State      string          `json:"state"`
	IsVerified *bool           `json:"isVerified"`
	FormData   json.RawMessage `json:"formatData"`
}

// TestRealCredoFormData pins the re-check against a real Credo verifier
// (formdata.js: verifier and holder agents over loopback DIDComm): its
// format data reads as readFormData expects, a real Credo holder's VP that
// meets the definition has no problem (no false refusal), and one that
// fails the field's filter is refused naming the field though Credo
// itself verified it; the same for a JWT credential, which Credo's holder
// presents as a JWT VP (EdDSA, the challenge as its nonce). It also pins the fake credo-controller's form-data
// answer to the real one's shape. Skips with one line when the Credo
// holder install is missing (internal/testenv/credo).
func TestRealCredoFormData(t *testing.T) {
	out := credoenv.RunScript(t, "formdata.js")
	tests := []struct {
		name      string
		wantUnmet string // a problem naming this; "" for none
		jwt       bool   // the VP is a JWT (a string), not a JSON-LD object
	}{
		{name: "meets"},
		{name: "fails", wantUnmet: "birthDate"},
		{name: "jwt-meets", jwt: true},
		{name: "jwt-fails", wantUnmet: "birthDate", jwt: true},
	}
	got := map[string]realFormData{}
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var r realFormData
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("formdata.js printed %q: %v", line, err)
		}
		got[r.Case] = r
	}
	fakeShape := fakeFormDataShape(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := got[tt.name]
			if !ok {
				t.Fatalf("no %q case in formdata.js's output:\n%s", tt.name, out)
			}
			// The record is where AcceptPresentation finds it; Credo's own
			// verdict is true either way: the failing case is what the
			// re-check is for.
			if r.State != "presentation-received" || r.IsVerified == nil || !*r.IsVerified {
				t.Errorf("verifier's record: state %q, isVerified %v; want presentation-received, true", r.State, r.IsVerified)
			}
			// As checkPresentation reads and judges the answer.
			fd, err := readFormData(r.FormData)
			if err != nil {
				t.Fatalf("readFormData: %v\n%s", err, r.FormData)
			}
			if fd.request == nil || fd.challenge == "" || fd.presentation == nil {
				t.Fatalf("read request %v, challenge %q, presentation %v; want all three from\n%s",
					fd.request != nil, fd.challenge, fd.presentation != nil, r.FormData)
			}
			problems := presentationProblems(fd)
			switch {
			case tt.wantUnmet == "" && len(problems) > 0:
				t.Errorf("a real Credo holder's VP that meets the definition is refused: %q\nVP: %s", problems, fd.presentation)
			case tt.wantUnmet != "" && !strings.Contains(strings.Join(problems, "\n"), tt.wantUnmet):
				t.Errorf("problems %q, want one naming %q\nVP: %s", problems, tt.wantUnmet, fd.presentation)
			}
			t.Logf("problems: %q", problems)
			want := fakeShape
			if tt.jwt {
				// The fake answers with a JSON-LD VP; Credo keeps a JWT VP
				// as the compact JWT, in the same place.
				want = slices.Clone(fakeShape)
				i := slices.Index(want, "presentation.presentationExchange: object")
				if i < 0 {
					t.Fatalf("fake shape %q has no JSON-LD presentation", want)
				}
				want[i] = "presentation.presentationExchange: string"
			}
			if shape := formDataShape(t, r.FormData); !slices.Equal(shape, want) {
				t.Errorf("the fake credo-controller's form-data answer (openapitest.Credo) has shape\n  %q\nCredo's has\n  %q", want, shape)
			}
		})
	}
}

// formDataShape lists the members of a form-data answer with their JSON
// types, down to the request's options and the presentation's type; the
// definition's and the VP's contents are the requester's and the holder's.
func formDataShape(t *testing.T, raw []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("form-data %s: %v", raw, err)
	}
	var shape []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if path != "" { // the answer itself
				shape = append(shape, path+": object")
			}
			if strings.HasSuffix(path, "presentation_definition") || strings.HasPrefix(path, "presentation.") {
				return
			}
			for k, e := range v {
				walk(strings.TrimPrefix(path+"."+k, "."), e)
			}
		case string:
			shape = append(shape, path+": string")
		default:
			shape = append(shape, path+": other")
		}
	}
	walk("", v)
	slices.Sort(shape)
	return shape
}

// fakeFormDataShape is formDataShape of the fake credo-controller's
// answer for a presentation-exchange request the backend made, once the
// holder's JSON-LD VP arrived.
func fakeFormDataShape(t *testing.T) []string {
	t.Helper()
	fake, res := fakePECreate(t)
	id := res.ProofRecord.ID
	fake.Present("", id, ldpPresentation(fake.Challenge(id), map[string]any{"id": "did:example:holder", "dateOfBirth": "1990-01-01"}))
	return formDataShape(t, fakeGet(t, fake, "/didcomm/proofs/"+id+"/form-data"))
}

// fakePECreate makes a presentation-exchange request through a credo
// backend on a new fake dedicated credo-controller.
func fakePECreate(t *testing.T) (*openapitest.Credo, backend.OOBResult) {
	t.Helper()
	fake := openapitest.NewCredo(t, openapitest.CredoOptions{})
	b := newBackend(t, fake, openapitest.CredoOptions{}, nil)
	res, err := b.SendOutOfBandRequest(context.Background(), backend.Org{ID: "org-1"}, peRequest())
	if err != nil {
		t.Fatal(err)
	}
	return fake, res
}

// fakeGet is the fake dedicated credo-controller's 200 answer to GET path.
func fakeGet(t *testing.T, fake *openapitest.Credo, path string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, fake.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+openapitest.CredoDedicatedToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("fake GET %s: %d %s %v", path, resp.StatusCode, raw, err)
	}
	return raw
}
