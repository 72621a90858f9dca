// Package didkey handles the Ed25519 keys of the local verifier and their
// two public spellings: did:key (W3C CCG did:key method: multicodec
// ed25519-pub 0xed, varint-encoded as 0xed 0x01, then multibase base58btc
// with the 'z' prefix), which RFC 0434 requires in out-of-band services,
// and the bare base58 "verkey" that ~service decorators and RFC 0019
// envelopes use.
package didkey

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha512"
	"errors"
	"fmt"
	"strings"

	"filippo.io/edwards25519"
	"github.com/mr-tron/base58"
)

// Prefix starts every did:key DID.
const Prefix = "did:key:"

// multicodecEd25519 is the varint encoding of the multicodec code 0xed
// (ed25519-pub): 0xed has its high bit set, so it takes two bytes.
var multicodecEd25519 = []byte{0xed, 0x01}

// maxEncoded caps what Decode and ParseVerkey look at: an Ed25519 did:key
// is 56 characters after "did:key:" and a verkey at most 44, so anything
// longer is rejected before base58 decoding (which is quadratic).
const maxEncoded = 64

// ErrInvalid means a did:key or verkey is not a well-formed Ed25519 key.
var ErrInvalid = errors.New("not an Ed25519 did:key or verkey")

// Generate returns a fresh Ed25519 key pair from crypto/rand.
func Generate() (ed25519.PublicKey, ed25519.PrivateKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("didkey: generating key: %w", err)
	}
	return pub, priv, nil
}

// Fingerprint returns the multibase method-specific id of pub ("z6Mk…").
func Fingerprint(pub ed25519.PublicKey) string {
	b := make([]byte, 0, len(multicodecEd25519)+len(pub))
	b = append(b, multicodecEd25519...)
	b = append(b, pub...)
	return "z" + base58.Encode(b)
}

// Encode returns the did:key DID of pub ("did:key:z6Mk…").
func Encode(pub ed25519.PublicKey) string {
	return Prefix + Fingerprint(pub)
}

// Decode returns the Ed25519 public key of a did:key DID. A DID URL whose
// fragment repeats the fingerprint ("did:key:z6Mk…#z6Mk…", as ACA-Py
// writes recipient keys) is accepted too; any other fragment is not.
func Decode(did string) (ed25519.PublicKey, error) {
	rest, ok := strings.CutPrefix(did, Prefix)
	if !ok {
		return nil, ErrInvalid
	}
	if fp, frag, found := strings.Cut(rest, "#"); found {
		if frag != fp {
			return nil, ErrInvalid
		}
		rest = fp
	}
	if len(rest) > maxEncoded || !strings.HasPrefix(rest, "z") {
		return nil, ErrInvalid
	}
	b, err := base58.Decode(rest[1:])
	if err != nil || len(b) != len(multicodecEd25519)+ed25519.PublicKeySize || !bytes.HasPrefix(b, multicodecEd25519) {
		return nil, ErrInvalid
	}
	return checkPoint(b[len(multicodecEd25519):])
}

// Verkey returns the base58 (Bitcoin alphabet, no multibase prefix)
// spelling of pub used by ~service decorators and DIDComm v1 envelopes.
func Verkey(pub ed25519.PublicKey) string {
	return base58.Encode(pub)
}

// ParseVerkey is the inverse of Verkey.
func ParseVerkey(s string) (ed25519.PublicKey, error) {
	if s == "" || len(s) > maxEncoded {
		return nil, ErrInvalid
	}
	b, err := base58.Decode(s)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, ErrInvalid
	}
	return checkPoint(b)
}

// X25519PublicKey converts an Ed25519 public key to the X25519 key that
// DIDComm v1 (RFC 0019) encrypts to: the Montgomery form of the point.
func X25519PublicKey(pub ed25519.PublicKey) ([]byte, error) {
	p, err := new(edwards25519.Point).SetBytes(pub)
	if err != nil {
		return nil, ErrInvalid
	}
	return p.BytesMontgomery(), nil
}

// X25519PrivateKey converts an Ed25519 private key to its X25519 private
// key: the first half of SHA-512(seed), clamped, as libsodium's
// crypto_sign_ed25519_sk_to_curve25519 does.
func X25519PrivateKey(priv ed25519.PrivateKey) []byte {
	h := sha512.Sum512(priv.Seed())
	k := h[:32]
	k[0] &= 248
	k[31] &= 127
	k[31] |= 64
	return bytes.Clone(k)
}

// checkPoint rejects 32-byte strings that are not points on the curve, so
// a malformed key fails here rather than deep inside envelope code, and the
// eight points of small order. No one holds a private key for those, yet
// their X25519 form makes every Diffie-Hellman secret zero, which
// nacl/box does not refuse (libsodium's crypto_box does): an authcrypt
// "from" such a key is one anyone can make.
func checkPoint(b []byte) (ed25519.PublicKey, error) {
	p, err := new(edwards25519.Point).SetBytes(b)
	if err != nil || new(edwards25519.Point).MultByCofactor(p).Equal(edwards25519.NewIdentityPoint()) == 1 {
		return nil, ErrInvalid
	}
	return ed25519.PublicKey(bytes.Clone(b)), nil
}
