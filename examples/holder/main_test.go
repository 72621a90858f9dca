package main

import (
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

func TestSelfAttestedProof(t *testing.T) {
	inv := &wallet.Invitation{ProofRequest: wallet.ProofRequest{
		Nonce: "1234567890",
		RequestedAttributes: map[string]wallet.RequestedAttr{
			"a1": {Name: "name"},
			"a2": {Name: "city"},
		},
	}}
	p, err := selfAttestedProof(inv, attrs{"name": "Alice"})
	if err != nil {
		t.Fatal(err)
	}
	rp := p.(map[string]any)["requested_proof"].(map[string]any)
	got := rp["self_attested_attrs"].(map[string]string)
	if got["a1"] != "Alice" || got["a2"] != "demo" || len(got) != 2 {
		t.Fatalf("self_attested_attrs %v", got)
	}
	// SHA-256 of the nonce's big-endian bytes (0x499602d2), as a decimal.
	agg := p.(map[string]any)["proof"].(map[string]any)["aggregated_proof"].(map[string]any)
	if agg["c_hash"] != "10639816310985837783199378615488296256229070620850680453677115602812438341389" {
		t.Errorf("c_hash %v", agg["c_hash"])
	}

	inv.ProofRequest.RequestedAttributes["a3"] = wallet.RequestedAttr{Name: "degree", Restrictions: []map[string]string{{"issuer_did": "X"}}}
	inv.ProofRequest.RequestedPredicates = map[string]wallet.RequestedPred{"p1": {Name: "age", PType: ">=", PValue: 18}}
	_, err = selfAttestedProof(inv, nil)
	if err == nil || !strings.Contains(err.Error(), `predicate "p1" (age >= 18)`) || !strings.Contains(err.Error(), `attribute "a3" (degree) with restrictions`) {
		t.Fatalf("a request only credentials answer: %v", err)
	}
}

func TestAttrsFlag(t *testing.T) {
	a := attrs{}
	if err := a.Set("name=Alice=B"); err != nil || a["name"] != "Alice=B" {
		t.Fatalf("%v %v", err, a)
	}
	if err := a.Set("novalue"); err == nil {
		t.Fatal("name without =value accepted")
	}
}
