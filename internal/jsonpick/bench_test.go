package jsonpick

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/benchutil"
)

// benchInvitation is an out-of-band invitation as agents write it: the
// request-presentation attached as base64, the bulk of an answer's bytes.
var benchInvitation = `{"@type":"https://didcomm.org/out-of-band/1.1/invitation","@id":"5b7c0d1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e",` +
	`"label":"Verifier","accept":["didcomm/aip1","didcomm/aip2;env=rfc19"],"handshake_protocols":[],` +
	`"services":[{"id":"#inline-0","serviceEndpoint":"https://agent.example.com","type":"did-communication",` +
	`"recipientKeys":["did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH"],"routingKeys":[]}],` +
	`"requests~attach":[{"@id":"request-presentation-0","mime-type":"application/json","data":{"base64":"` +
	base64.StdEncoding.EncodeToString([]byte(strings.Repeat(`{"name":"proof-request","version":"1.0","nonce":"1234567890"}`, 20))) +
	`"}}]}`

// benchAnswer is shaped like credo-controller's create-request-oob answer:
// a long invitation URL, the invitation twice, members never read.
var benchAnswer = []byte(`{"invitationUrl":"https://agent.example.com/?oob=` +
	base64.URLEncoding.EncodeToString([]byte(benchInvitation)) + `",` +
	`"invitation":` + benchInvitation + `,"outOfBandRecord":{"id":"0b1c","state":"await-response","role":"sender",` +
	`"createdAt":"2026-01-02T03:04:05.678Z","outOfBandInvitation":` + benchInvitation + `,"reusable":false,"autoAcceptConnection":true},` +
	`"invitationDid":"did:peer:2.Ez6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc","proofRecordThId":"7e0b0a5c-2f0d-4d44-9a5f-0e5b6f5c2b11"}`)

var benchRecord = `{"_tags":{"state":"request-sent","threadId":"7e0b0a5c-2f0d-4d44-9a5f-0e5b6f5c2b11","role":"verifier"},` +
	`"metadata":{"_internal/proofRequest":{"nonce":"1234567890","requested_attributes":{"name":{"name":"name","restrictions":[{"cred_def_id":"Th7MpTaRZVRYnPiabds81Y:3:CL:1:tag"}]}},"requested_predicates":{}}},` +
	`"id":"2d6d3b5e-7a67-4a52-8d55-6cb0b3a1c9a2","createdAt":"2026-01-02T03:04:05.678Z","updatedAt":"2026-01-02T03:04:05.678Z",` +
	`"protocolVersion":"v2","state":"request-sent","role":"verifier","threadId":"7e0b0a5c-2f0d-4d44-9a5f-0e5b6f5c2b11","isVerified":true,"autoAcceptProof":"always"}`

// benchList is a record list of ten, as an agent answers a query by thread.
var benchList = []byte(`[` + strings.Repeat(benchRecord+`,`, 9) + benchRecord + `]`)

func BenchmarkObject(b *testing.B) {
	names := []string{"invitationUrl", "invitation", "proofRecordThId"}
	vals := make([][]byte, len(names))
	b.SetBytes(int64(len(benchAnswer)))
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		if odd, err := Object(benchAnswer, names, vals); odd || err != nil || vals[2] == nil {
			b.Fatal(odd, err)
		}
	}
}

func BenchmarkArray(b *testing.B) {
	names := []string{"id", "threadId", "state", "isVerified"}
	b.SetBytes(int64(len(benchList)))
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		n := 0
		if err := Array(benchList, names, func(_ []byte, vals [][]byte, odd bool) {
			if !odd && vals[1] != nil {
				n++
			}
		}); err != nil || n != 10 {
			b.Fatal(n, err)
		}
	}
}
