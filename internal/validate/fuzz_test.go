package validate

import (
	"testing"
)

// FuzzOOB asserts that OOB never panics and that its answer is consistent:
// either a filled request or a non-empty Errors.
func FuzzOOB(f *testing.F) {
	v := newValidator(f, Options{})
	for _, seed := range []string{
		indyBody, peBody, `{}`, `[]`, `{"a":1,"a":2}`, `{"presentationDefinition":[{"inputDescriptors":[{}]}]}`,
		`{"isShortenUrl":true,"proofFormats":{},"presentationDefinition":{"input_descriptors":[{"id":"a","constraints":{"fields":[{"path":["$..a[?(@.b>1)]"],"filter":{"$ref":"#/x","pattern":"(("}}]}}],"submission_requirements":[{"rule":"pick","from_nested":[{"from":"x"}]}]}}`,
		`{"isShortenUrl":false,"proofFormats":{"indy":{"name":"x","version":"1","requested_attributes":{"a":{"names":["x"],"restrictions":[{"attr::x::marker":"1","rev_reg_id":"did:x:y/z?a#b"}]}},"non_revoked":{"from":1e300}}}}`,
	} {
		f.Add("indy", []byte(seed))
		f.Add("presentationExchange", []byte(seed))
	}
	f.Fuzz(func(t *testing.T, requestType string, body []byte) {
		req, err := v.OOB(requestType, body)
		if err != nil {
			errs, ok := err.(Errors)
			if !ok || len(errs) == 0 {
				t.Fatalf("error %v (%T) is not a non-empty Errors", err, err)
			}
			if req.RequestType != "" {
				t.Fatal("a rejected request came back filled in")
			}
			return
		}
		switch req.RequestType {
		case "indy":
			if req.Indy == nil || req.PresentationDefinition != nil {
				t.Fatalf("indy request %+v", req)
			}
		case "presentationExchange":
			if req.Indy != nil || req.PresentationDefinition == nil || req.PresentationDefinitionID == "" {
				t.Fatalf("PE request %+v", req)
			}
		default:
			t.Fatalf("accepted requestType %q", req.RequestType)
		}
	})
}

// FuzzPresentationDefinition fuzzes the presentation definition alone and
// checks that normalization is stable: an accepted definition, sent again
// as the object it was normalized to, is accepted and normalizes to itself.
func FuzzPresentationDefinition(f *testing.F) {
	v := newValidator(f, Options{})
	for _, seed := range []string{
		`{"id":"32f54163","input_descriptors":[{"id":"a","constraints":{"fields":[{"path":["$.credentialSubject.x"]}]}}]}`,
		`[{"inputDescriptors":[{"id":"a","constraints":{"fields":[{"path":["$.x"]}]}}]}]`,
		`{"input_descriptors":[{"id":"a","constraints":{"fields":[{"path":["$.x"],"filter":{"type":"string","pattern":"^a"}}]}}],"submission_requirements":[{"rule":"all","from":"A"}]}`,
		`{"presentation_definition":{}}`, `[]`, `[{},{}]`, `null`, `{"id":""}`, `"x"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, def []byte) {
		body := []byte(`{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":` + string(def) + `}`)
		req, err := v.OOB("presentationExchange", body)
		if err != nil {
			return
		}
		again, err := v.OOB("presentationExchange", []byte(`{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":`+string(req.PresentationDefinition)+`}`))
		if err != nil {
			t.Fatalf("the normalized definition is refused: %v\n%s", err, req.PresentationDefinition)
		}
		if string(again.PresentationDefinition) != string(req.PresentationDefinition) || again.PresentationDefinitionID != req.PresentationDefinitionID {
			t.Fatalf("normalization is not stable:\n%s\n%s", req.PresentationDefinition, again.PresentationDefinition)
		}
	})
}
