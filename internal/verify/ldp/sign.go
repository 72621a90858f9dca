package ldp

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/mr-tron/base58"

	"github.com/proofgate/proofgate/internal/jsonld"
)

// Signer adds proofs to JSON-LD documents (test wallets, tools).
type Signer struct {
	// Canon canonicalizes; nil: DefaultCanonicalizer (pinned contexts).
	Canon *jsonld.Canonicalizer
	// Key is an ed25519.PrivateKey or an *ecdsa.PrivateKey on P-256.
	Key any
	// VerificationMethod is the DID URL of Key.
	VerificationMethod string
}

// SignOptions shape one proof.
type SignOptions struct {
	// Type is the proof type; Cryptosuite is set for DataIntegrityProof.
	Type, Cryptosuite string
	// Purpose is assertionMethod (credentials) or authentication
	// (presentations).
	Purpose string
	// Challenge and Domain go into the proof when not empty.
	Challenge, Domain string
	// Created defaults to now.
	Created time.Time
}

// Sign returns a copy of doc with a proof added (replacing any proof).
func (s *Signer) Sign(ctx context.Context, doc map[string]any, o SignOptions) (map[string]any, error) {
	su, err := lookupSuite(o.Type, o.Cryptosuite)
	if err != nil {
		return nil, err
	}
	created := o.Created
	if created.IsZero() {
		created = time.Now()
	}
	proof := map[string]any{
		"type":               o.Type,
		"created":            created.UTC().Format(time.RFC3339),
		"verificationMethod": s.VerificationMethod,
		"proofPurpose":       o.Purpose,
	}
	if o.Cryptosuite != "" {
		proof["cryptosuite"] = o.Cryptosuite
	}
	if o.Challenge != "" {
		proof["challenge"] = o.Challenge
	}
	if o.Domain != "" {
		proof["domain"] = o.Domain
	}
	unsecured := clone(doc)
	delete(unsecured, "proof")
	if su.jcs {
		if dctx, ok := unsecured["@context"]; ok {
			proof["@context"] = dctx
		}
	}
	config := clone(proof)
	canon := s.Canon
	if canon == nil {
		canon = DefaultCanonicalizer()
	}
	data, err := hashData(ctx, canon, su, unsecured, config, true)
	if err != nil {
		return nil, err
	}
	if su.jws {
		header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"EdDSA","b64":false,"crit":["b64"]}`))
		sig, err := s.signRaw(su, append([]byte(header+"."), data...))
		if err != nil {
			return nil, err
		}
		proof["jws"] = header + ".." + base64.RawURLEncoding.EncodeToString(sig)
	} else {
		sig, err := s.signRaw(su, data)
		if err != nil {
			return nil, err
		}
		proof["proofValue"] = "z" + base58.Encode(sig)
	}
	unsecured["proof"] = proof
	return unsecured, nil
}

func (s *Signer) signRaw(su suite, data []byte) ([]byte, error) {
	switch k := s.Key.(type) {
	case ed25519.PrivateKey:
		if su.key != keyEd25519 {
			return nil, fmt.Errorf("%w: %s needs a P-256 key", ErrUnsupported, su.name)
		}
		return ed25519.Sign(k, data), nil
	case *ecdsa.PrivateKey:
		if su.key != keyP256 {
			return nil, fmt.Errorf("%w: %s needs an Ed25519 key", ErrUnsupported, su.name)
		}
		h := sha256.Sum256(data)
		r, ss, err := ecdsa.Sign(rand.Reader, k, h[:])
		if err != nil {
			return nil, err
		}
		sig := make([]byte, 64)
		r.FillBytes(sig[:32])
		ss.FillBytes(sig[32:])
		return sig, nil
	default:
		return nil, fmt.Errorf("%w: key type %T", ErrUnsupported, s.Key)
	}
}
