package cl

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// Size bounds on the numbers a prover sends. Everything a presentation
// carries is checked against these before any modular exponentiation, so a
// hostile proof costs bounded CPU. The values are generous: the reference
// library (2048-bit moduli) produces exponents of at most ~3100 bits
// (v̂) and group elements below its ~2050-bit modulus.
const (
	// MaxModulusBits bounds n of a credential definition's public key.
	MaxModulusBits = 4096
	// MaxExponentBits bounds every exponent read from a proof (ê, v̂, m̂,
	// m̂2, û, r̂, α̂, m̂j).
	MaxExponentBits = 4096
	// MaxElementBits bounds group elements read from a proof (A', T).
	MaxElementBits = MaxModulusBits
	// MaxRevealedBits bounds a revealed attribute value (its absolute
	// value: a negative 32-bit integer is taken). The encoding rule makes
	// every value a SHA-256 digest or a 32-bit integer (attributeBits), so
	// a larger one is no credential's, and each costs an exponentiation
	// by it: MaxExponentBits would let a hostile proof ask 16 times the
	// work of an honest one per value.
	MaxRevealedBits = attributeBits
	// MaxChallengeBits bounds c_hash, a SHA-256 output.
	MaxChallengeBits = 256
	// MaxAttributes bounds the attributes of one sub proof (m̂ and revealed
	// values together); Indy ledgers allow 125 per schema.
	MaxAttributes = 256
	// MaxPredicates bounds the GE proofs of one sub proof.
	MaxPredicates = 64
	// MaxSubProofs bounds the credentials of one presentation.
	MaxSubProofs = 32
	// MaxCListEntries and MaxCListEntryBytes bound the aggregated proof's
	// commitments.
	MaxCListEntries    = 4096
	MaxCListEntryBytes = 1024
)

// parseDec reads a decimal integer (optionally negative, digits only) of
// at most maxBits bits. The digit count is checked before parsing, so an
// oversized number costs no big-number work.
func parseDec(field, s string, maxBits int) (*big.Int, error) {
	digits := s
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	// Leading zeros are taken (the reference parses "007" as 7) but do
	// not count: log10(2) < 0.30103, so maxBits bits have at most
	// maxBits*0.30103+1 significant digits.
	significant := strings.TrimLeft(digits, "0")
	if len(digits) == 0 || len(significant) > maxBits*30103/100000+1 {
		return nil, fmt.Errorf("%s: not a decimal integer of at most %d bits", field, maxBits)
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return nil, fmt.Errorf("%s: not a decimal integer", field)
		}
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.BitLen() > maxBits {
		return nil, fmt.Errorf("%s: not a decimal integer of at most %d bits", field, maxBits)
	}
	return v, nil
}

// parseNonNeg is parseDec for values that must not be negative (group
// elements, the challenge).
func parseNonNeg(field, s string, maxBits int) (*big.Int, error) {
	v, err := parseDec(field, s, maxBits)
	if err == nil && v.Sign() < 0 {
		return nil, fmt.Errorf("%s: negative", field)
	}
	return v, err
}

// parseMap reads a map of decimal strings with parse.
func parseMap(field string, m map[string]string, limit int, parse func(string, string) (*big.Int, error)) (map[string]*big.Int, error) {
	if len(m) > limit {
		return nil, fmt.Errorf("%s: more than %d entries", field, limit)
	}
	out := make(map[string]*big.Int, len(m))
	for k, s := range m {
		v, err := parse(field+"."+k, s)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

func exponent(field, s string) (*big.Int, error) { return parseDec(field, s, MaxExponentBits) }

// element reads a group element; a negative one is taken, as the
// reference takes it, and reduced modulo n where it is used.
func element(field, s string) (*big.Int, error) { return parseDec(field, s, MaxElementBits) }

// byteList is a JSON array of byte values (the reference serializes
// Vec<u8> so), of at most MaxCListEntryBytes.
type byteList []byte

func (b *byteList) UnmarshalJSON(data []byte) error {
	var ints []int
	if err := json.Unmarshal(data, &ints); err != nil {
		return fmt.Errorf("not an array of bytes")
	}
	if len(ints) > MaxCListEntryBytes {
		return fmt.Errorf("more than %d bytes", MaxCListEntryBytes)
	}
	out := make([]byte, len(ints))
	for i, v := range ints {
		if v < 0 || v > 255 {
			return fmt.Errorf("%d is not a byte", v)
		}
		out[i] = byte(v)
	}
	*b = out
	return nil
}
