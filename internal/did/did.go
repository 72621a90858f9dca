// Package did resolves the keys that sign W3C credentials and
// presentations: did:key (Ed25519, P-256) and did:jwk locally, did:web over
// HTTPS through the outbound address guard, and any other method through
// an optional DIF Universal Resolver. It also answers the question a
// verifier must ask of every proof: is this verification method
// authorized for this purpose (assertionMethod for credentials,
// authentication for presentations)?
package did

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"errors"
	"fmt"
	"strings"
)

// Verification relationships a proof purpose needs.
const (
	AssertionMethod = "assertionMethod"
	Authentication  = "authentication"
)

// Errors of resolution; all wrap one of these.
var (
	// ErrUnsupported: a DID method (or key type) we cannot resolve.
	ErrUnsupported = errors.New("unsupported DID method or key type")
	// ErrNotFound: the DID or the verification method does not exist.
	ErrNotFound = errors.New("DID or verification method not found")
	// ErrNotAuthorized: the method exists but not for the purpose.
	ErrNotAuthorized = errors.New("verification method not authorized for the proof purpose")
	// ErrInvalid: a malformed DID or DID document.
	ErrInvalid = errors.New("invalid DID or DID document")
	// ErrUnreachable: the DID document could not be fetched.
	ErrUnreachable = errors.New("DID document could not be fetched")
)

// MaxDIDLength caps a DID URL we look at.
const MaxDIDLength = 2048

// VerificationMethod is one public key of a DID document.
type VerificationMethod struct {
	// ID is the absolute DID URL of the method.
	ID string
	// Type is the method's type as published (Ed25519VerificationKey2018,
	// Ed25519VerificationKey2020, Multikey, JsonWebKey2020).
	Type string
	// Controller is the DID that controls the key.
	Controller string
	// PublicKey is an ed25519.PublicKey or an *ecdsa.PublicKey on P-256.
	PublicKey crypto.PublicKey
}

// Document is the part of a DID document a verifier uses.
type Document struct {
	ID      string
	Methods map[string]*VerificationMethod
	// Relationships maps assertionMethod, authentication, … to the
	// absolute ids of the methods they authorize.
	Relationships map[string][]string
}

// Method returns the verification method id if the document authorizes it
// for relationship.
func (d *Document) Method(id, relationship string) (*VerificationMethod, error) {
	vm, ok := d.Methods[id]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	for _, r := range d.Relationships[relationship] {
		if r == id {
			return vm, nil
		}
	}
	return nil, fmt.Errorf("%w: %s is not an %s method of %s", ErrNotAuthorized, id, relationship, d.ID)
}

// Split cuts a DID URL into its DID and the rest (path, query, fragment).
func Split(didURL string) (did, rest string) {
	i := strings.IndexAny(didURL, "/?#")
	if i < 0 {
		return didURL, ""
	}
	return didURL[:i], didURL[i:]
}

// Method returns the method name of a DID ("key" for did:key:…).
func MethodName(did string) string {
	parts := strings.SplitN(did, ":", 3)
	if len(parts) < 3 || parts[0] != "did" {
		return ""
	}
	return parts[1]
}

// checkKey accepts only the key types we verify with.
func checkKey(k crypto.PublicKey) error {
	switch k := k.(type) {
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return fmt.Errorf("%w: Ed25519 key of %d bytes", ErrInvalid, len(k))
		}
		return nil
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return fmt.Errorf("%w: ECDSA curve %s", ErrUnsupported, k.Curve.Params().Name)
		}
		return nil
	default:
		return fmt.Errorf("%w: key type %T", ErrUnsupported, k)
	}
}

// KeyResolver finds the key of a verification method authorized for a
// relationship. *Resolver implements it; tests use fixed keys.
type KeyResolver interface {
	ResolveKey(ctx context.Context, vmID, relationship string) (*VerificationMethod, error)
}
