package anoncreds

import (
	"crypto/sha256"
	"math/big"
	"strconv"
)

// Encode is the standard AnonCreds encoding of a raw attribute value: a
// 32-bit signed integer (optional sign, decimal digits, leading zeros
// allowed) encodes as itself in canonical decimal; anything else as the
// SHA-256 digest of its UTF-8 bytes read as a big-endian integer, in
// decimal. This is the rule of the AnonCreds specification and of
// anoncreds-rs (encode_credential_attribute).
func Encode(raw string) string {
	if v, err := strconv.ParseInt(raw, 10, 32); err == nil {
		return strconv.FormatInt(v, 10)
	}
	sum := sha256.Sum256([]byte(raw))
	return new(big.Int).SetBytes(sum[:]).String()
}
