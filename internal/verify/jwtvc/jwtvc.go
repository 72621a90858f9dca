// Package jwtvc signs and verifies W3C credentials and presentations as
// JWTs (VC Data Model 1.1 §6.3.1, the DIF claim formats jwt_vc and jwt_vp
// that Credo presents) with go-jose and an explicit algorithm list:
// EdDSA (Ed25519) and ES256 (P-256).
package jwtvc

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/proofgate/proofgate/internal/did"
)

// Algorithms are the only JWS algorithms accepted.
var Algorithms = []jose.SignatureAlgorithm{jose.EdDSA, jose.ES256}

// MaxJWTLength caps a compact JWT (a VP embeds its credentials).
const MaxJWTLength = 256 << 10

// Errors; every failure wraps one of these or a did error.
var (
	ErrMalformed   = errors.New("malformed JWT")
	ErrUnsupported = errors.New("unsupported JWT algorithm or key")
	ErrSignature   = errors.New("JWT signature does not verify")
)

// Claims are the registered claims VC-JWT maps to credential fields.
type Claims struct {
	Issuer    string           `json:"iss,omitempty"`
	Subject   string           `json:"sub,omitempty"`
	Audience  jwt.Audience     `json:"aud,omitempty"`
	ID        string           `json:"jti,omitempty"`
	Nonce     string           `json:"nonce,omitempty"`
	NotBefore *jwt.NumericDate `json:"nbf,omitempty"`
	Expiry    *jwt.NumericDate `json:"exp,omitempty"`
	IssuedAt  *jwt.NumericDate `json:"iat,omitempty"`
	// VC and VP are the credential or presentation objects.
	VC map[string]any `json:"vc,omitempty"`
	VP map[string]any `json:"vp,omitempty"`
}

// Verified is a JWT whose signature verified.
type Verified struct {
	Claims Claims
	// Alg is the JWS algorithm.
	Alg string
	// VerificationMethod is the absolute id of the key used (from kid).
	VerificationMethod string
	// Controller is the DID that controls the key.
	Controller string
}

// IsJWT reports whether s looks like a compact JWS.
func IsJWT(s string) bool {
	return strings.Count(s, ".") == 2 && strings.HasPrefix(s, "ey")
}

// Verify checks a compact JWT's signature with the key its kid (or, for
// did:key and did:jwk issuers without kid, its iss) names, authorized for
// relationship. It does not judge the claims.
func Verify(ctx context.Context, keys did.KeyResolver, token, relationship string) (*Verified, error) {
	if len(token) > MaxJWTLength {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrMalformed, MaxJWTLength)
	}
	tok, err := jwt.ParseSigned(token, Algorithms)
	if err != nil {
		if strings.Contains(err.Error(), "unexpected signature algorithm") {
			return nil, fmt.Errorf("%w: algorithm not EdDSA or ES256", ErrUnsupported)
		}
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if len(tok.Headers) != 1 {
		return nil, fmt.Errorf("%w: one signature expected", ErrMalformed)
	}
	h := tok.Headers[0]
	var unverified Claims
	if err := tok.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return nil, fmt.Errorf("%w: claims: %v", ErrMalformed, err)
	}
	vmID, err := methodID(h.KeyID, unverified.Issuer)
	if err != nil {
		return nil, err
	}
	vm, err := keys.ResolveKey(ctx, vmID, relationship)
	if err != nil {
		return nil, err
	}
	switch vm.PublicKey.(type) {
	case ed25519.PublicKey:
		if h.Algorithm != string(jose.EdDSA) {
			return nil, fmt.Errorf("%w: %s with an Ed25519 key", ErrUnsupported, h.Algorithm)
		}
	case *ecdsa.PublicKey:
		if h.Algorithm != string(jose.ES256) {
			return nil, fmt.Errorf("%w: %s with a P-256 key", ErrUnsupported, h.Algorithm)
		}
	default:
		return nil, fmt.Errorf("%w: key type", ErrUnsupported)
	}
	var c Claims
	if err := tok.Claims(vm.PublicKey, &c); err != nil {
		return nil, fmt.Errorf("%w", ErrSignature)
	}
	return &Verified{Claims: c, Alg: h.Algorithm, VerificationMethod: vm.ID, Controller: vm.Controller}, nil
}

// methodID makes the kid absolute: "#0" is relative to iss; a missing kid
// is allowed for did:key and did:jwk issuers, whose one key is implied.
func methodID(kid, iss string) (string, error) {
	switch {
	case strings.HasPrefix(kid, "did:"):
		return kid, nil
	case strings.HasPrefix(kid, "#") && strings.HasPrefix(iss, "did:"):
		return iss + kid, nil
	case kid == "" && strings.HasPrefix(iss, "did:key:"):
		return did.KeyMethodID(iss), nil
	case kid == "" && strings.HasPrefix(iss, "did:jwk:"):
		return iss + "#0", nil
	case kid != "" && strings.HasPrefix(iss, "did:") && !strings.Contains(kid, ":"):
		return iss + "#" + kid, nil
	}
	return "", fmt.Errorf("%w: no key id (kid) naming a DID verification method", ErrMalformed)
}

// Sign returns a compact JWT of claims signed by key (ed25519.PrivateKey
// or *ecdsa.PrivateKey on P-256) with kid.
func Sign(key any, kid string, claims Claims) (string, error) {
	var alg jose.SignatureAlgorithm
	switch key.(type) {
	case ed25519.PrivateKey:
		alg = jose.EdDSA
	case *ecdsa.PrivateKey:
		alg = jose.ES256
	default:
		return "", fmt.Errorf("%w: key type %T", ErrUnsupported, key)
	}
	opts := (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		return "", err
	}
	raw, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	obj, err := signer.Sign(raw)
	if err != nil {
		return "", err
	}
	return obj.CompactSerialize()
}
