// Package ldp signs and verifies the embedded proofs of W3C credentials
// and presentations: Linked Data signatures Ed25519Signature2018 (detached
// JWS, b64=false: what ACA-Py and Credo issue), Ed25519Signature2020 and
// EcdsaSecp256r1Signature2019, and Data Integrity DataIntegrityProof with
// the cryptosuites eddsa-rdfc-2022, eddsa-jcs-2022 and ecdsa-rdfc-2019
// (P-256). RDF canonicalization goes through internal/jsonld (pinned
// contexts, bounded work), JCS through github.com/gowebpki/jcs.
//
// Signing lives here too, beside verification, so the test wallet and the
// verifier cannot drift apart.
package ldp

import (
	"errors"
	"fmt"
)

// Proof types and cryptosuites.
const (
	Ed25519Signature2018        = "Ed25519Signature2018"
	Ed25519Signature2020        = "Ed25519Signature2020"
	EcdsaSecp256r1Signature2019 = "EcdsaSecp256r1Signature2019"
	DataIntegrityProof          = "DataIntegrityProof"

	EdDSARDFC2022 = "eddsa-rdfc-2022"
	EdDSAJCS2022  = "eddsa-jcs-2022"
	ECDSARDFC2019 = "ecdsa-rdfc-2019"
)

// Errors of verification; every error wraps one of these or is a
// jsonld error (unsupported context, limits) or a did error (key).
var (
	// ErrUnsupported: a proof type, cryptosuite or key type we do not verify.
	ErrUnsupported = errors.New("unsupported proof")
	// ErrSignature: the signature does not verify.
	ErrSignature = errors.New("signature does not verify")
	// ErrMalformed: the proof or the document is not well formed.
	ErrMalformed = errors.New("malformed proof or document")
	// ErrPurpose: the proof's purpose is not the one required.
	ErrPurpose = errors.New("wrong proof purpose")
)

// keyKind is the key a suite signs with.
type keyKind int

const (
	keyEd25519 keyKind = iota
	keyP256
)

// suite describes how one proof type (and cryptosuite) is computed.
type suite struct {
	name string // Type, or DataIntegrityProof/<cryptosuite>
	key  keyKind
	// jcs hashes JCS forms instead of RDF canonical forms.
	jcs bool
	// jws is a detached JWS with b64=false (Ed25519Signature2018);
	// otherwise proofValue is multibase base58btc.
	jws bool
	// dataIntegrity proofs need an @context on the document.
	dataIntegrity bool
}

var suites = map[string]suite{
	Ed25519Signature2018:                     {name: Ed25519Signature2018, key: keyEd25519, jws: true},
	Ed25519Signature2020:                     {name: Ed25519Signature2020, key: keyEd25519},
	EcdsaSecp256r1Signature2019:              {name: EcdsaSecp256r1Signature2019, key: keyP256},
	DataIntegrityProof + "/" + EdDSARDFC2022: {name: DataIntegrityProof + "/" + EdDSARDFC2022, key: keyEd25519, dataIntegrity: true},
	DataIntegrityProof + "/" + EdDSAJCS2022:  {name: DataIntegrityProof + "/" + EdDSAJCS2022, key: keyEd25519, jcs: true, dataIntegrity: true},
	DataIntegrityProof + "/" + ECDSARDFC2019: {name: DataIntegrityProof + "/" + ECDSARDFC2019, key: keyP256, dataIntegrity: true},
}

// lookupSuite finds the suite of a proof type (and cryptosuite).
func lookupSuite(typ, cryptosuite string) (suite, error) {
	key := typ
	if typ == DataIntegrityProof {
		key = typ + "/" + cryptosuite
	} else if cryptosuite != "" {
		return suite{}, fmt.Errorf("%w: %s with a cryptosuite", ErrMalformed, typ)
	}
	s, ok := suites[key]
	if !ok {
		return suite{}, fmt.Errorf("%w: %.80s", ErrUnsupported, key)
	}
	return s, nil
}

// Supported lists the proof types (DataIntegrityProof/<cryptosuite>) verified.
func Supported() []string {
	return []string{
		Ed25519Signature2018, Ed25519Signature2020, EcdsaSecp256r1Signature2019,
		DataIntegrityProof + "/" + EdDSARDFC2022, DataIntegrityProof + "/" + EdDSAJCS2022, DataIntegrityProof + "/" + ECDSARDFC2019,
	}
}
