package jwt

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-jose/go-jose/v4"
)

// keySet is an immutable set of public verification keys, as read from a
// JWKS document or from static key files. It is replaced, never changed,
// so readers need no lock.
type keySet struct {
	keys []jose.JSONWebKey
	// skipped counts the entries left out (encryption keys, symmetric keys,
	// key types this build cannot use), for the fetch log.
	skipped int
	// private counts entries that carried private key material: published,
	// such a key is compromised, so it is never used.
	private int
	// weak counts RSA keys shorter than MinRSABits.
	weak int
}

// MinRSABits is the shortest RSA key taken (NIST SP 800-131A: 1024-bit
// keys have been disallowed for signatures since 2013; identity providers
// make 2048-bit keys by default).
const MinRSABits = 2048

// parseJWKS reads a JWKS document ({"keys":[...]}). Each key is parsed on
// its own so that one key of a type go-jose does not know (an IdP adding a
// post-quantum key, say) does not make the whole set unusable.
func parseJWKS(data []byte) (*keySet, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not a JWKS document: %v", err)
	}
	if doc.Keys == nil {
		return nil, errors.New(`not a JWKS document: no "keys" array`)
	}
	set := &keySet{}
	for _, raw := range doc.Keys {
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON(raw); err != nil {
			set.skipped++
			continue
		}
		set.add(k)
	}
	return set, nil
}

// add keeps k if it can verify signatures: asymmetric, not marked for
// encryption only, and for RSA at least MinRSABits. A key published with
// its private half is compromised (whoever reads the document can sign)
// and is never taken. Symmetric ("oct") keys are never taken, so an HMAC
// token can never be checked against key material that was published.
func (s *keySet) add(k jose.JSONWebKey) {
	switch k.Key.(type) {
	case *rsa.PrivateKey, *ecdsa.PrivateKey, ed25519.PrivateKey:
		// Published private key material, whatever its use: compromised.
		s.private++
		s.skipped++
		return
	}
	if k.Use != "" && k.Use != "sig" {
		s.skipped++
		return
	}
	switch key := k.Key.(type) {
	case *rsa.PublicKey:
		if key.N.BitLen() < MinRSABits {
			s.weak++
			s.skipped++
			return
		}
	case *ecdsa.PublicKey, ed25519.PublicKey:
	default:
		s.skipped++
		return
	}
	if !k.Valid() {
		s.skipped++
		return
	}
	s.keys = append(s.keys, k)
}

// candidates returns the keys that may have signed a token with the given
// header kid and alg: the keys with that kid (a key without a kid, as read
// from a PEM file, stands for any; a token without a kid may be checked
// against every key), whose own "alg", if set, is alg, and whose type fits
// alg.
func (s *keySet) candidates(kid string, alg jose.SignatureAlgorithm) []jose.JSONWebKey {
	if s == nil {
		return nil
	}
	var out []jose.JSONWebKey
	for _, k := range s.keys {
		if kid != "" && k.KeyID != "" && k.KeyID != kid {
			continue
		}
		if k.Algorithm != "" && k.Algorithm != string(alg) {
			continue
		}
		if !keyFitsAlg(k.Key, alg) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// hasKid reports whether the set holds a key with exactly this kid (a
// kid-less key stands in for any kid, but says nothing of this one).
func (s *keySet) hasKid(kid string) bool {
	if s == nil {
		return false
	}
	for _, k := range s.keys {
		if k.KeyID == kid {
			return true
		}
	}
	return false
}

// keyFitsAlg pairs algorithm families with key types, so that a key is
// only ever used with the kind of algorithm it was made for.
func keyFitsAlg(key any, alg jose.SignatureAlgorithm) bool {
	switch alg {
	case jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512:
		_, ok := key.(*rsa.PublicKey)
		return ok
	case jose.ES256, jose.ES384, jose.ES512:
		_, ok := key.(*ecdsa.PublicKey)
		return ok
	case jose.EdDSA:
		_, ok := key.(ed25519.PublicKey)
		return ok
	}
	return false
}
