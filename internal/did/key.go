package did

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"fmt"
	"strings"

	"github.com/mr-tron/base58"
)

// Multicodec prefixes (unsigned varints) of the public keys a did:key or
// a Multikey publicKeyMultibase carries.
var (
	codecEd25519 = []byte{0xed, 0x01} // ed25519-pub, 0xed
	codecP256    = []byte{0x80, 0x24} // p256-pub, 0x1200
)

// maxMultibase caps a multibase key before base58 decoding (quadratic):
// the longest we accept, a P-256 key, is 49 characters.
const maxMultibase = 128

// ParseMultikey decodes a base58btc multibase, multicodec-prefixed public
// key ("z6Mk…" Ed25519, "zDn…" P-256 compressed).
func ParseMultikey(mb string) (crypto.PublicKey, error) {
	if len(mb) > maxMultibase || !strings.HasPrefix(mb, "z") {
		return nil, fmt.Errorf("%w: key is not base58btc multibase", ErrInvalid)
	}
	raw, err := base58.Decode(mb[1:])
	if err != nil {
		return nil, fmt.Errorf("%w: key: %v", ErrInvalid, err)
	}
	switch {
	case hasPrefix(raw, codecEd25519):
		k := raw[len(codecEd25519):]
		if len(k) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("%w: Ed25519 key of %d bytes", ErrInvalid, len(k))
		}
		return ed25519.PublicKey(k), nil
	case hasPrefix(raw, codecP256):
		x, y := elliptic.UnmarshalCompressed(elliptic.P256(), raw[len(codecP256):])
		if x == nil {
			return nil, fmt.Errorf("%w: not a compressed P-256 point", ErrInvalid)
		}
		// crypto/ecdsa takes only the uncompressed form (0x04 ‖ x ‖ y).
		var point [1 + 2*p256Bytes]byte
		point[0] = 4
		x.FillBytes(point[1 : 1+p256Bytes])
		y.FillBytes(point[1+p256Bytes:])
		k, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point[:])
		if err != nil {
			return nil, fmt.Errorf("%w: P-256 key: %v", ErrInvalid, err)
		}
		return k, nil
	default:
		return nil, fmt.Errorf("%w: key codec (only Ed25519 and P-256)", ErrUnsupported)
	}
}

// EncodeMultikey is the inverse of ParseMultikey.
func EncodeMultikey(pub crypto.PublicKey) (string, error) {
	var raw []byte
	switch k := pub.(type) {
	case ed25519.PublicKey:
		raw = append(append(raw, codecEd25519...), k...)
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return "", fmt.Errorf("%w: curve %s", ErrUnsupported, k.Curve.Params().Name)
		}
		point, err := k.Bytes() // 0x04 ‖ x ‖ y
		if err != nil {
			return "", fmt.Errorf("%w: P-256 key: %v", ErrInvalid, err)
		}
		// Compressed (SEC 1, 2.3.3): 0x02 for an even y, 0x03 for an odd
		// one, then x.
		raw = append(append(raw, codecP256...), 2|point[len(point)-1]&1)
		raw = append(raw, point[1:1+p256Bytes]...)
	default:
		return "", fmt.Errorf("%w: key type %T", ErrUnsupported, pub)
	}
	return "z" + base58.Encode(raw), nil
}

// p256Bytes is the length of a P-256 coordinate.
const p256Bytes = 32

func hasPrefix(b, p []byte) bool {
	return len(b) >= len(p) && string(b[:len(p)]) == string(p)
}

// KeyDID returns the did:key DID of pub.
func KeyDID(pub crypto.PublicKey) (string, error) {
	mb, err := EncodeMultikey(pub)
	if err != nil {
		return "", err
	}
	return "did:key:" + mb, nil
}

// KeyMethodID returns the id of the single verification method of a
// did:key DID ("did:key:z…#z…").
func KeyMethodID(didKey string) string {
	return didKey + "#" + strings.TrimPrefix(didKey, "did:key:")
}

// resolveKey expands a did:key DID into its document: one method,
// authorized for every verification relationship.
func resolveKey(d string) (*Document, error) {
	mb := strings.TrimPrefix(d, "did:key:")
	pub, err := ParseMultikey(mb)
	if err != nil {
		return nil, err
	}
	typ := "Multikey"
	if _, ok := pub.(ed25519.PublicKey); ok {
		typ = "Ed25519VerificationKey2018"
	}
	vm := &VerificationMethod{ID: KeyMethodID(d), Type: typ, Controller: d, PublicKey: pub}
	return singleKeyDocument(d, vm), nil
}

func singleKeyDocument(d string, vm *VerificationMethod) *Document {
	all := []string{vm.ID}
	return &Document{
		ID:      d,
		Methods: map[string]*VerificationMethod{vm.ID: vm},
		Relationships: map[string][]string{
			AssertionMethod:        all,
			Authentication:         all,
			"capabilityInvocation": all,
			"capabilityDelegation": all,
		},
	}
}
