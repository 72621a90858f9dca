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
