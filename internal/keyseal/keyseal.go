// Package keyseal encrypts private key material at rest (XChaCha20-Poly1305
// from golang.org/x/crypto, a random 192-bit nonce per seal) under a key
// encryption key the operator supplies. A sealed value names the key that
// sealed it, so keys can be rotated: the current key seals, and the current
// and any previous keys open.
package keyseal

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"
)

// KeySize is the size of a key encryption key: 32 bytes.
const KeySize = chacha20poly1305.KeySize

// prefix versions the sealed format: "v1.<key id>.<base64url(nonce|ciphertext)>".
const prefix = "v1."

// ErrUnknownKey means a value was sealed with a key that is not configured
// (neither the current one nor a previous one).
var ErrUnknownKey = errors.New("keyseal: sealed with a key encryption key that is not configured")

// Sealer seals with its current key and opens with any of its keys.
type Sealer struct {
	current string // key id
	keys    map[string][]byte
}

// ParseKey reads a key encryption key: 32 bytes as 64 hex digits or as
// base64 (standard or URL alphabet, padded or not), surrounding space
// ignored (a file ending in a newline).
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := hex.DecodeString(s); err == nil && len(b) == KeySize {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == KeySize {
			return b, nil
		}
	}
	return nil, fmt.Errorf("keyseal: a key encryption key is %d random bytes, as 64 hex digits or base64 (e.g. openssl rand -base64 32)", KeySize)
}

// New returns a Sealer sealing with current and also opening with previous.
func New(current []byte, previous ...[]byte) (*Sealer, error) {
	s := &Sealer{keys: map[string][]byte{}}
	for i, k := range append([][]byte{current}, previous...) {
		if len(k) != KeySize {
			return nil, fmt.Errorf("keyseal: key %d is %d bytes, want %d", i, len(k), KeySize)
		}
		id := keyID(k)
		s.keys[id] = k
		if i == 0 {
			s.current = id
		}
	}
	return s, nil
}

// keyID names a key without revealing it: 8 hex digits of a domain-separated
// SHA-256.
func keyID(k []byte) string {
	h := sha256.Sum256(append([]byte("proofgate keyseal id\x00"), k...))
	return hex.EncodeToString(h[:4])
}

// IsSealed reports whether v is a sealed value.
func IsSealed(v string) bool { return strings.HasPrefix(v, prefix) }

// Seal encrypts plaintext; context binds it to where it is stored (a
// verkey), so a sealed value moved to another document does not open.
func (s *Sealer) Seal(plaintext []byte, context string) (string, error) {
	aead, err := chacha20poly1305.NewX(s.keys[s.current])
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plaintext)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := aead.Seal(nonce, nonce, plaintext, []byte(context))
	return prefix + s.current + "." + base64.RawURLEncoding.EncodeToString(out), nil
}

// Open decrypts a value sealed by Seal with the same context.
func (s *Sealer) Open(sealed, context string) ([]byte, error) {
	rest, ok := strings.CutPrefix(sealed, prefix)
	if !ok {
		return nil, errors.New("keyseal: not a sealed value")
	}
	id, data, ok := strings.Cut(rest, ".")
	if !ok {
		return nil, errors.New("keyseal: malformed sealed value")
	}
	key, ok := s.keys[id]
	if !ok {
		return nil, fmt.Errorf("%w (key id %s)", ErrUnknownKey, id)
	}
	raw, err := base64.RawURLEncoding.DecodeString(data)
	if err != nil {
		return nil, errors.New("keyseal: malformed sealed value")
	}
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, err
	}
	if len(raw) < aead.NonceSize()+aead.Overhead() {
		return nil, errors.New("keyseal: sealed value too short")
	}
	plain, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], []byte(context))
	if err != nil {
		return nil, errors.New("keyseal: sealed value does not open (altered, or another context)")
	}
	return plain, nil
}

// Stale reports whether sealed was made with a key other than the current
// one (it opens, but should be sealed again after a rotation).
func (s *Sealer) Stale(sealed string) bool {
	rest, _ := strings.CutPrefix(sealed, prefix)
	id, _, _ := strings.Cut(rest, ".")
	return id != s.current
}
