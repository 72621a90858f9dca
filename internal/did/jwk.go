package did

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-jose/go-jose/v4"
)

// maxJWKDID caps the method-specific id of a did:jwk.
const maxJWKDID = 1024

// resolveJWK expands a did:jwk DID (base64url JSON of a public JWK) into
// its document: one method "#0", authorized for every relationship except
// keyAgreement (and not at all when the JWK is "use": "enc").
func resolveJWK(d string) (*Document, error) {
	enc := strings.TrimPrefix(d, "did:jwk:")
	if len(enc) > maxJWKDID {
		return nil, fmt.Errorf("%w: did:jwk too long", ErrInvalid)
	}
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return nil, fmt.Errorf("%w: did:jwk is not base64url: %v", ErrInvalid, err)
	}
	var jwk jose.JSONWebKey
	if err := json.Unmarshal(raw, &jwk); err != nil {
		return nil, fmt.Errorf("%w: did:jwk: %v", ErrInvalid, err)
	}
	pub, err := publicFromJWK(&jwk)
	if err != nil {
		return nil, err
	}
	vm := &VerificationMethod{ID: d + "#0", Type: "JsonWebKey2020", Controller: d, PublicKey: pub}
	doc := singleKeyDocument(d, vm)
	if jwk.Use == "enc" {
		doc.Relationships = map[string][]string{}
	}
	return doc, nil
}

// publicFromJWK accepts public Ed25519 and P-256 keys only.
func publicFromJWK(jwk *jose.JSONWebKey) (any, error) {
	if !jwk.Valid() {
		return nil, fmt.Errorf("%w: invalid JWK", ErrInvalid)
	}
	if !jwk.IsPublic() {
		return nil, fmt.Errorf("%w: JWK holds a private key", ErrInvalid)
	}
	switch k := jwk.Key.(type) {
	case ed25519.PublicKey:
		return k, checkKey(k)
	case *ecdsa.PublicKey:
		return k, checkKey(k)
	default:
		return nil, fmt.Errorf("%w: JWK key type %T", ErrUnsupported, jwk.Key)
	}
}

// JWKDID returns the did:jwk DID of a public key (for signers and tests).
func JWKDID(pub any) (string, error) {
	raw, err := json.Marshal(jose.JSONWebKey{Key: pub})
	if err != nil {
		return "", err
	}
	return "did:jwk:" + base64.RawURLEncoding.EncodeToString(raw), nil
}
