package cl

import (
	"math/big"
	"strings"
	"testing"
)

// TestResponseBoundsDerived: the bounds are the ones derived from the
// reference prover's sizes (constants.rs).
func TestResponseBoundsDerived(t *testing.T) {
	if MaxEHatBits != 457 || MaxMHatBits != 593 {
		t.Fatalf("MaxEHatBits %d, MaxMHatBits %d; want 457 and 593", MaxEHatBits, MaxMHatBits)
	}
}

// TestEqualityResponseBounds: ê and m̂ must lie where an honest prover's
// do, and an equality proof may name only the credential's attributes
// (m̂ also the link secret). Each is checked before any exponentiation.
func TestEqualityResponseBounds(t *testing.T) {
	pow := func(bits uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), bits) }
	minus1 := func(x *big.Int) *big.Int { return new(big.Int).Sub(x, big.NewInt(1)) }
	attrs := []string{"age", "name"}
	for _, tt := range []struct {
		name     string
		e, m     *big.Int
		extraM   string // an m̂ entry besides age and the link secret
		revealed string
		wantErr  string // "" for none
	}{
		{name: "honest sizes", e: minus1(pow(456)), m: minus1(pow(592))},
		{name: "largest ê", e: minus1(pow(MaxEHatBits)), m: big.NewInt(0)},
		{name: "ê of 458 bits", e: pow(MaxEHatBits), m: big.NewInt(1), wantErr: "ê is not in"},
		// The forgery: e = 1, e' = 1 − 2^596, ê = ẽ + c·e' ≈ −2^852.
		{name: "ê negative (e = 1)", e: new(big.Int).Neg(pow(852)), m: big.NewInt(1), wantErr: "ê is not in"},
		{name: "ê −1", e: big.NewInt(-1), m: big.NewInt(1), wantErr: "ê is not in"},
		{name: "largest m̂", e: big.NewInt(0), m: minus1(pow(MaxMHatBits))},
		{name: "m̂ of 594 bits", e: big.NewInt(1), m: pow(MaxMHatBits), wantErr: "not in [0, 2^593)"},
		{name: "m̂ negative", e: big.NewInt(1), m: big.NewInt(-1), wantErr: "not in [0, 2^593)"},
		{name: "m̂ for an attribute outside the schema", e: big.NewInt(1), m: big.NewInt(1), extraM: "degree", wantErr: `m̂ for "degree", which is not an attribute`},
		{name: "m̂ for a revealed attribute of the schema", e: big.NewInt(1), m: big.NewInt(1), extraM: "name", revealed: "name"},
		{name: "revealed attribute outside the schema", e: big.NewInt(1), m: big.NewInt(1), revealed: "degree", wantErr: `the revealed "degree" is not an attribute`},
	} {
		eq := &EqProof{E: tt.e, M: map[string]*big.Int{LinkSecret: big.NewInt(7), "age": tt.m}, Revealed: map[string]*big.Int{}}
		if tt.extraM != "" {
			eq.M[tt.extraM] = big.NewInt(3)
		}
		if tt.revealed != "" {
			eq.Revealed[tt.revealed] = big.NewInt(5)
		}
		err := checkEqResponses(attrs, eq)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}
