package proofs

import (
	"reflect"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
)

// appendAnonCredsRequest writes r as build.go does (the proof request of
// an indy create), for comparing with marshal of the struct conform_indy
// decodes.
func appendAnonCredsRequest(b []byte, r *AnonCredsProofRequest) []byte {
	req := backend.IndyProofRequest{
		Name: r.Name, Version: r.Version,
		RequestedAttributes: r.RequestedAttributes, RequestedPredicates: r.RequestedPredicates,
		NonRevoked: r.NonRevoked,
	}
	return backend.AppendAnonCredsRequest(b, &req, r.Nonce, false)
}

// TestAppendAnonCredsRequest: appendAnonCredsRequest writes what marshal
// writes: every field set (fill), maps in encoding/json's key order,
// optional members absent, empty and nil maps and lists, a nil
// restriction.
func TestAppendAnonCredsRequest(t *testing.T) {
	var full AnonCredsProofRequest
	fill(reflect.ValueOf(&full).Elem())
	from, to := int64(0), int64(1700000000)
	many := AnonCredsProofRequest{
		Name: "proof of age", Version: "1.0", Nonce: "1234567890",
		RequestedAttributes: map[string]backend.IndyAttribute{
			"b": {Name: "name", Restrictions: []map[string]string{{"schema_id": "s", "cred_def_id": "c", "attr::name::value": "<Ann & Bo>"}, nil, {}}},
			"a": {Names: []string{"given", "family"}, NonRevoked: &backend.NonRevoked{From: &from}},
			"Z": {}, "é": {Name: "x", NonRevoked: &backend.NonRevoked{}}, "a.b": {Name: "y", NonRevoked: &backend.NonRevoked{To: &to}},
		},
		RequestedPredicates: map[string]backend.IndyPredicate{
			"p2": {Name: "age", PType: ">=", PValue: -2147483648},
			"p1": {Name: "score", PType: "<", PValue: 2147483647, Restrictions: []map[string]string{{"issuer_did": "d"}}, NonRevoked: &backend.NonRevoked{From: &from, To: &to}},
		},
		NonRevoked: &backend.NonRevoked{From: &from, To: &to},
	}
	for name, r := range map[string]AnonCredsProofRequest{
		"full": full, "many": many, "zero": {},
		"empty maps": {RequestedAttributes: map[string]backend.IndyAttribute{}, RequestedPredicates: map[string]backend.IndyPredicate{}},
	} {
		want, err := marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendAnonCredsRequest([]byte("x"), &r); string(got) != "x"+string(want) {
			t.Errorf("%s:\n got  %s\n want x%s", name, got, want)
		}
	}
}
