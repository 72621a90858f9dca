package cl

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

func TestParseDec(t *testing.T) {
	for _, tt := range []struct {
		in      string
		bits    int
		wantErr bool
	}{
		{"0", 8, false},
		{"255", 8, false},
		{"256", 8, true},
		{"-255", 8, false},
		{"", 8, true},
		{"-", 8, true},
		{"+1", 8, true},
		{"000255", 8, false},
		{strings.Repeat("0", 100) + "1", 8, false},
		{" 1", 8, true},
		{"1e3", 64, true},
		{"0x10", 64, true},
		{strings.Repeat("9", 1200), 4096, false},
		{strings.Repeat("9", 1300), 4096, true}, // refused on its length, before parsing
	} {
		_, err := parseDec("f", tt.in, tt.bits)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseDec(%.20q, %d): err %v, want error %v", tt.in, tt.bits, err, tt.wantErr)
		}
	}
	if _, err := parseNonNeg("f", "-1", 8); err == nil {
		t.Error("parseNonNeg took a negative number")
	}
}

func TestByteList(t *testing.T) {
	var b byteList
	if err := json.Unmarshal([]byte(`[0,1,255]`), &b); err != nil || len(b) != 3 || b[2] != 255 {
		t.Fatalf("%v %v", b, err)
	}
	for _, bad := range []string{`[256]`, `[-1]`, `"AAE="`, `[1.5]`, "[" + strings.Repeat("1,", MaxCListEntryBytes) + "1]"} {
		if err := json.Unmarshal([]byte(bad), &b); err == nil {
			t.Errorf("%.30s: taken", bad)
		}
	}
}

// TestRevealedValueBound: a revealed value is an encoded attribute, a
// SHA-256 digest or a 32-bit integer (negative ones too), so ParseProof
// refuses one of more than 256 bits before any exponentiation by it. The
// bound was MaxExponentBits (4096): sixteen times an honest value's
// cost, for every revealed attribute of every sub proof.
func TestRevealedValueBound(t *testing.T) {
	pow := func(bits uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), bits) }
	minus1 := func(x *big.Int) *big.Int { return new(big.Int).Sub(x, big.NewInt(1)) }
	for _, tt := range []struct {
		name    string
		value   *big.Int
		wantErr bool
	}{
		{"a 32-bit integer", big.NewInt(2015), false},
		{"a negative 32-bit integer", big.NewInt(-2147483648), false},
		{"the largest SHA-256 digest", minus1(pow(256)), false},
		{"the largest, negated", new(big.Int).Neg(minus1(pow(256))), false},
		{"257 bits", pow(256), true},
		{"257 bits, negated", new(big.Int).Neg(pow(256)), true},
		{"4096 bits", minus1(pow(4096)), true},
	} {
		raw := `{"proofs":[{"primary_proof":{"eq_proof":{"revealed_attrs":{"age":"` + tt.value.String() + `"},"a_prime":"5","e":"3","v":"7","m":{"master_secret":"9"},"m2":"4"},"ge_proofs":[]},"non_revoc_proof":null}],"aggregated_proof":{"c_hash":"12","c_list":[]}}`
		p, err := ParseProof([]byte(raw))
		switch {
		case tt.wantErr && (err == nil || !strings.Contains(err.Error(), "revealed_attrs.age: not a decimal integer of at most 256 bits")):
			t.Errorf("%s: error %v, want refused", tt.name, err)
		case !tt.wantErr && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case !tt.wantErr && p.Sub[0].Eq.Revealed["age"].Cmp(tt.value) != 0:
			t.Errorf("%s: read %v", tt.name, p.Sub[0].Eq.Revealed["age"])
		}
	}
}

// FuzzParseProof: whatever a prover sends, parsing returns (never
// panics), and what it returns respects the bounds.
func FuzzParseProof(f *testing.F) {
	f.Add([]byte(`{"proofs":[{"primary_proof":{"eq_proof":{"revealed_attrs":{"a":"1"},"a_prime":"5","e":"3","v":"7","m":{"master_secret":"9"},"m2":"4"},"ge_proofs":[{"u":{"0":"1"},"r":{"DELTA":"2"},"mj":"3","alpha":"-4","t":{"0":"5"},"predicate":{"attr_name":"age","p_type":"GE","value":18}}]},"non_revoc_proof":null}],"aggregated_proof":{"c_hash":"12","c_list":[[1,2,3]]}}`))
	f.Add([]byte(`{"proofs":[],"aggregated_proof":{"c_hash":"0","c_list":[]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProof(data)
		if err != nil {
			return
		}
		if len(p.Sub) > MaxSubProofs || len(p.CList) > MaxCListEntries || p.CHash.BitLen() > MaxChallengeBits {
			t.Fatal("bounds not kept")
		}
		for _, sp := range p.Sub {
			if sp.Eq.APrime.BitLen() > MaxElementBits || sp.Eq.V.BitLen() > MaxExponentBits || len(sp.GE) > MaxPredicates {
				t.Fatal("bounds not kept")
			}
			for _, v := range sp.Eq.Revealed {
				if v.BitLen() > MaxRevealedBits {
					t.Fatal("revealed value bound not kept")
				}
			}
		}
	})
}
