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
// do, an equality proof may name only the credential's attributes (m̂
// also the link secret), and an attribute is either revealed or hidden
// behind an m̂, not both. Each is checked before any exponentiation.
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
		// The equality check uses a revealed attribute's value, never an
		// m̂ for it: a stray one is unproven, and a GE proof's m̂j bound to
		// it would prove a predicate over a made-up value
		// (TestPredicateBindings). anoncreds 0.2.3 accepts it.
		{name: "m̂ for a revealed attribute of the schema", e: big.NewInt(1), m: big.NewInt(1), extraM: "name", revealed: "name",
			wantErr: `m̂ for "name", which the equality proof reveals`},
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

// TestPredicateBindings: a GE proof says something about the credential
// only when it is over an attribute the equality proof hides, with that
// attribute's m̂ as m̂j; checked before any exponentiation. The row "over
// a revealed attribute" is the forgery of
// internal/anoncreds/testdata/forged_predicate_revealed.json (age 34
// revealed, "age >= 50" proven over a stray m̂), which anoncreds 0.2.3
// verifies.
func TestPredicateBindings(t *testing.T) {
	for _, tt := range []struct {
		name     string
		revealed bool     // age revealed (with its value) rather than hidden
		m        *big.Int // the equality proof's m̂ for age; nil for none
		mj       int64
		wantErr  string // "" for none
	}{
		{name: "over a hidden attribute, m̂j its m̂", m: big.NewInt(42), mj: 42},
		{name: "over a hidden attribute, another m̂j", m: big.NewInt(42), mj: 43, wantErr: `m̂j differs from the equality proof's m̂ for "age"`},
		{name: "over an attribute the equality proof does not name", mj: 42, wantErr: `over "age", which the equality proof does not hide`},
		{name: "over a revealed attribute, m̂j a stray m̂", revealed: true, m: big.NewInt(42), mj: 42, wantErr: `over "age", which the equality proof reveals`},
		{name: "over a revealed attribute", revealed: true, mj: 42, wantErr: `over "age", which the equality proof reveals`},
	} {
		sp := &SubProof{
			Eq: EqProof{Revealed: map[string]*big.Int{}, M: map[string]*big.Int{LinkSecret: big.NewInt(7)}},
			GE: []GEProof{{Mj: big.NewInt(tt.mj), Predicate: Predicate{Attr: "age", Type: GE, Value: 50}}},
		}
		if tt.revealed {
			sp.Eq.Revealed["age"] = big.NewInt(34)
		}
		if tt.m != nil {
			sp.Eq.M["age"] = tt.m
		}
		err := checkPredicateBindings(sp)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}
