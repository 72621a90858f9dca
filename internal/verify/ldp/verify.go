package ldp

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/mr-tron/base58"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/jsonld"
)

// Verifier verifies the proofs of JSON-LD documents.
type Verifier struct {
	Canon *jsonld.Canonicalizer
	Keys  did.KeyResolver
}

// VerifyOptions say what the proofs must be.
type VerifyOptions struct {
	// Purpose is the proofPurpose (and verification relationship)
	// required: did.AssertionMethod for credentials, did.Authentication
	// for presentations.
	Purpose string
	// Safe canonicalizes the document in JSON-LD safe mode (an undefined
	// term fails instead of being dropped unsigned). Credentials: true.
	Safe bool
	// At, when not zero, is the time of the verification: a proof whose
	// "expires" is more than Skew before it is refused (ErrProofExpired).
	At   time.Time
	Skew time.Duration
}

// ErrProofExpired means a proof's "expires" has passed.
var ErrProofExpired = errors.New("ldp: the proof has expired")

// Verify checks every proof of doc (a proof set must verify whole) and
// returns what they said. doc is not modified.
func (v *Verifier) Verify(ctx context.Context, doc map[string]any, o VerifyOptions) ([]Proof, error) {
	objs, err := proofsOf(doc)
	if err != nil {
		return nil, err
	}
	unsecured := clone(doc)
	delete(unsecured, "proof")
	out := make([]Proof, 0, len(objs))
	for _, obj := range objs {
		p, err := v.verifyOne(ctx, unsecured, obj, o)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func (v *Verifier) verifyOne(ctx context.Context, unsecured, obj map[string]any, o VerifyOptions) (Proof, error) {
	rp, err := parseProof(obj)
	if err != nil {
		return Proof{}, err
	}
	s, err := lookupSuite(rp.typ, rp.cryptosuite)
	if err != nil {
		return Proof{}, err
	}
	res := Proof{Type: s.name, VerificationMethod: rp.verificationMethod, Purpose: rp.purpose, Challenge: rp.challenge, Domains: rp.domains, Created: rp.created, Expires: rp.expires, RDF: !s.jcs}
	if !o.At.IsZero() && !rp.expires.IsZero() && o.At.Add(-o.Skew).After(rp.expires) {
		return res, fmt.Errorf("%w: expires %s", ErrProofExpired, rp.expires.Format(time.RFC3339))
	}
	if rp.purpose != o.Purpose {
		return res, fmt.Errorf("%w: %.40s, want %s", ErrPurpose, rp.purpose, o.Purpose)
	}
	vm, err := v.Keys.ResolveKey(ctx, rp.verificationMethod, o.Purpose)
	if err != nil {
		return res, err
	}
	res.Controller = vm.Controller
	config := clone(obj)
	delete(config, "jws")
	delete(config, "signatureValue")
	delete(config, "proofValue")
	data, err := hashData(ctx, v.Canon, s, unsecured, config, o.Safe)
	if err != nil {
		return res, err
	}
	if err := checkSignature(s, vm.PublicKey, obj, data); err != nil {
		return res, err
	}
	return res, nil
}

// checkSignature verifies the signature of obj over data with pub.
func checkSignature(s suite, pub any, obj map[string]any, data []byte) error {
	if s.jws {
		jws, _ := obj["jws"].(string)
		signingInput, sig, err := detachedJWS(jws, data)
		if err != nil {
			return err
		}
		data = signingInput
		return verifyRaw(s, pub, data, sig)
	}
	pv, _ := obj["proofValue"].(string)
	if !strings.HasPrefix(pv, "z") || len(pv) > 200 {
		return fmt.Errorf("%w: proofValue is not base58btc multibase", ErrMalformed)
	}
	sig, err := base58.Decode(pv[1:])
	if err != nil {
		return fmt.Errorf("%w: proofValue: %v", ErrMalformed, err)
	}
	return verifyRaw(s, pub, data, sig)
}

// jwsHeader is the only header an Ed25519Signature2018 JWS may carry.
type jwsHeader struct {
	Alg  string   `json:"alg"`
	B64  *bool    `json:"b64"`
	Crit []string `json:"crit"`
}

// detachedJWS returns the JWS signing input (header "." data, unencoded
// payload per RFC 7797) and the signature.
func detachedJWS(jws string, data []byte) ([]byte, []byte, error) {
	parts := strings.Split(jws, ".")
	if len(jws) > 1024 || len(parts) != 3 || parts[1] != "" {
		return nil, nil, fmt.Errorf("%w: jws is not a detached JWS", ErrMalformed)
	}
	rawHeader, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return nil, nil, fmt.Errorf("%w: jws header: %v", ErrMalformed, err)
	}
	var all map[string]json.RawMessage
	var h jwsHeader
	if json.Unmarshal(rawHeader, &all) != nil || json.Unmarshal(rawHeader, &h) != nil {
		return nil, nil, fmt.Errorf("%w: jws header is not JSON", ErrMalformed)
	}
	if len(all) != 3 || h.Alg != "EdDSA" || h.B64 == nil || *h.B64 || len(h.Crit) != 1 || h.Crit[0] != "b64" {
		return nil, nil, fmt.Errorf("%w: jws header must be {alg: EdDSA, b64: false, crit: [b64]}", ErrUnsupported)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, nil, fmt.Errorf("%w: jws signature: %v", ErrMalformed, err)
	}
	input := append([]byte(parts[0]+"."), data...)
	return input, sig, nil
}

// verifyRaw checks sig over data with the suite's algorithm.
func verifyRaw(s suite, pub any, data, sig []byte) error {
	switch s.key {
	case keyEd25519:
		k, ok := pub.(ed25519.PublicKey)
		if !ok {
			return fmt.Errorf("%w: %s needs an Ed25519 key", ErrUnsupported, s.name)
		}
		if len(sig) != ed25519.SignatureSize || !ed25519.Verify(k, data, sig) {
			return ErrSignature
		}
		return nil
	case keyP256:
		k, ok := pub.(*ecdsa.PublicKey)
		if !ok || k.Curve != elliptic.P256() {
			return fmt.Errorf("%w: %s needs a P-256 key", ErrUnsupported, s.name)
		}
		if len(sig) != 64 {
			return ErrSignature
		}
		h := sha256.Sum256(data)
		r, ss := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		if !ecdsa.Verify(k, h[:], r, ss) {
			return ErrSignature
		}
		return nil
	}
	return fmt.Errorf("%w: key type", ErrUnsupported)
}
