package apikey

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// DigestPrefix marks a key configured as its SHA-256 digest instead of in
// plaintext: "sha256:<64 hex digits>".
const DigestPrefix = "sha256:"

// MinKeyLength is the shortest plaintext key accepted in a configuration:
// shorter keys are guessable.
const MinKeyLength = 16

// Digest returns the configuration form of a plaintext key, as printed by
// `caddy proofgate hash-key`.
func Digest(plaintext string) string {
	sum := sha256.Sum256([]byte(plaintext))
	return DigestPrefix + hex.EncodeToString(sum[:])
}

// parseKey turns a configured key (plaintext, or DigestPrefix + hex) into
// its digest. The plaintext is not kept.
func parseKey(configured string) ([sha256.Size]byte, error) {
	var d [sha256.Size]byte
	if isDigest(configured) {
		hexDigest := configured[len(DigestPrefix):]
		b, err := hex.DecodeString(hexDigest)
		if err != nil || len(b) != sha256.Size {
			return d, fmt.Errorf("a %s key must be followed by %d hex digits", DigestPrefix, 2*sha256.Size)
		}
		copy(d[:], b)
		return d, nil
	}
	if len(configured) < MinKeyLength {
		return d, fmt.Errorf("key is too short (%d characters; at least %d)", len(configured), MinKeyLength)
	}
	return sha256.Sum256([]byte(configured)), nil
}

// isDigest reports whether a configured key is given as its digest: the
// prefix in any case ("SHA256:", as some tools print it). Taken for a
// plaintext key, the digest string, which Caddy's config dump shows,
// would itself authenticate.
func isDigest(configured string) bool {
	return len(configured) >= len(DigestPrefix) && strings.EqualFold(configured[:len(DigestPrefix)], DigestPrefix)
}
