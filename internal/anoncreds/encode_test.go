package anoncreds

import (
	"crypto/sha256"
	"encoding/json"
	"math/big"
	"testing"
)

func TestEncode(t *testing.T) {
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return new(big.Int).SetBytes(sum[:]).String()
	}
	// Public vector of anoncreds-clsignatures (encode_attribute_works):
	// SHA-256 of "5435" as a big-endian integer.
	if got := hash("5435"); got != "83761840706354868391674207739241454863743470852830526299004654280720761327142" {
		t.Fatalf("hash(5435) = %s", got)
	}
	for _, tt := range []struct{ raw, want string }{
		{"5435", "5435"},
		{"0", "0"},
		{"-0", "0"},
		{"007", "7"},
		{"+7", "7"},
		{"-12", "-12"},
		{"2147483647", "2147483647"},
		{"-2147483648", "-2147483648"},
		{"2147483648", hash("2147483648")},
		{"-2147483649", hash("-2147483649")},
		{"", hash("")},
		{" 7", hash(" 7")},
		{"1_0", hash("1_0")},
		{"0x10", hash("0x10")},
		{"1.5", hash("1.5")},
		// The reference's own encoding, from the corpus.
		{"Alice Example", "43363515029670311851949585964083600880882974527980302118653791773887328088296"},
		{"Zürich", "29996482935312948221842872761883755828257005115547874116663242491598699335805"},
	} {
		if got := Encode(tt.raw); got != tt.want {
			t.Errorf("Encode(%q) = %s, want %s", tt.raw, got, tt.want)
		}
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
