package proofs

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/proofgate/proofgate/internal/jsonlimit"
	"github.com/proofgate/proofgate/internal/pexcheck"
)

// fuzzDefinition is a request whose definition uses what the cost bound
// allows: a recursive descent, wildcards, a filter, and a JSON Schema
// filter.
var fuzzDefinition = []byte(`{"options":{"challenge":"c","domain":"v.example"},"presentation_definition":{"id":"d","input_descriptors":[
	{"id":"x","group":["A"],"constraints":{"fields":[
		{"path":["$..id","$.credentialSubject[*].id"]},
		{"path":["$.credentialSubject.account[?(@.active == true && @.n > 2)].route"],"filter":{"type":"string","pattern":"^[a-z]+$"}},
		{"path":["$.type[*]"],"filter":{"const":"VerifiableCredential"}}]}},
	{"id":"y","group":["A"],"constraints":{"fields":[{"path":["$['@context'][0]"]}]}}],
	"submission_requirements":[{"rule":"pick","min":1,"from":"A"}]}}`)

var fuzzProofRequest = []byte(`{"name":"p","version":"1.0","nonce":"1",
	"requested_attributes":{"a1":{"name":"name","restrictions":[{"schema_id":"L5u3AaDjGhV2AjL6mwAjLm:2:employee:1.0"},{"attr::name::value":"Alice"}]},
		"g1":{"names":["x","y"]}},
	"requested_predicates":{"p1":{"name":"age","p_type":">=","p_value":18}}}`)

// Resource bound of one check of an input of at most fuzzMaxInput bytes.
const (
	fuzzMaxInput   = 64 << 10
	fuzzMaxBytes   = 32 << 20
	fuzzMaxObjects = 400_000
)

// FuzzCheckPresentation: whatever a prover sends as the presentation
// attachment, the structural check answers within a fixed budget of
// allocations, and never panics. Seeds in testdata/fuzz.
func FuzzCheckPresentation(f *testing.F) {
	f.Add([]byte(`{"presentation_submission":{"definition_id":"d","descriptor_map":[{"id":"x","format":"ldp_vc","path":"$.verifiableCredential[0]"}]},"verifiableCredential":[{"id":"v","type":["VerifiableCredential"],"credentialSubject":{"id":"s","account":[{"active":true,"n":3,"route":"abc"}]}}],"proof":{"challenge":"c","domain":"v.example"}}`), true)
	f.Fuzz(func(t *testing.T, payload []byte, pe bool) {
		if len(payload) > fuzzMaxInput {
			t.Skip()
		}
		if problem := jsonlimit.Problem(payload); problem != "" {
			return // refused before decoding (presentationPayload)
		}
		bytes, objects := growth(func() {
			if pe {
				_ = pexcheck.Check(fuzzDefinition, payload, "c", "v.example")
			} else {
				_ = checkIndyProof(fuzzProofRequest, payload)
			}
		})
		if bytes > fuzzMaxBytes || objects > fuzzMaxObjects {
			t.Fatalf("a %d byte presentation cost %d bytes in %d objects", len(payload), bytes, objects)
		}
	})
}

// FuzzCheckMessage: whatever plaintext message a prover sends on a
// record's thread, reading its attachment (formats, data.json or base64,
// JWT or JSON-LD) and checking it stays within the same allocation budget.
func FuzzCheckMessage(f *testing.F) {
	ctx := context.Background()
	svc := newTestService(f, fileStorage(f))
	docs := map[bool]*Doc{}
	for _, pe := range []bool{true, false} {
		req := indyRequest()
		if pe {
			req = peRequest()
		}
		res, err := svc.Create(ctx, testOrg, req)
		if err != nil {
			f.Fatal(err)
		}
		if docs[pe], err = svc.Load(ctx, res.ProofRecord.ID); err != nil {
			f.Fatal(err)
		}
	}
	f.Add([]byte(`{"@type":"https://didcomm.org/present-proof/2.0/presentation","formats":[{"attach_id":"a","format":"dif/presentation-exchange/submission@v1.0"}],"presentations~attach":[{"@id":"a","data":{"json":{"presentation_submission":{"definition_id":"32f54163-7166-48f1-93d8-ff217bdb0653","descriptor_map":[{"id":"wa_driver_license","format":"ldp_vc","path":"$.verifiableCredential[0]"}]},"verifiableCredential":[{"credentialSubject":{"dateOfBirth":"1990-01-01"}}],"proof":{"challenge":"x"}}}}]}`), true)
	f.Add([]byte(`{"formats":[{"attach_id":"a","format":"hlindy/proof@v2.0"}],"presentations~attach":[{"@id":"a","data":{"base64":"eyJwcm9vZiI6e30sInJlcXVlc3RlZF9wcm9vZiI6e319"}}]}`), false)
	f.Add([]byte(`{"formats":[{"attach_id":"a","format":"dif/presentation-exchange/submission@v1.0"}],"presentations~attach":[{"@id":"a","data":{"json":"eyJhbGciOiJFZERTQSJ9.e30.c2ln"}}]}`), true)
	f.Fuzz(func(t *testing.T, plaintext []byte, pe bool) {
		if len(plaintext) > fuzzMaxInput || jsonlimit.Problem(plaintext) != "" {
			return // Receive refuses it before decoding
		}
		var msg inboundMessage
		if json.Unmarshal(plaintext, &msg) != nil {
			return
		}
		bytes, objects := growth(func() { _, _ = checkPresentation(docs[pe], &msg) })
		if bytes > fuzzMaxBytes || objects > fuzzMaxObjects {
			t.Fatalf("a %d byte message cost %d bytes in %d objects", len(plaintext), bytes, objects)
		}
	})
}
