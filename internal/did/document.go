package did

import (
	"crypto"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-jose/go-jose/v4"
	"github.com/mr-tron/base58"
)

// MaxMethods caps the verification methods read from one DID document.
const MaxMethods = 64

// relationships we read from DID documents.
var relationshipNames = []string{AssertionMethod, Authentication, "capabilityInvocation", "capabilityDelegation"}

type rawMethod struct {
	ID                 string          `json:"id"`
	Type               string          `json:"type"`
	PublicKeyMultibase string          `json:"publicKeyMultibase"`
	PublicKeyBase58    string          `json:"publicKeyBase58"`
	PublicKeyJwk       json.RawMessage `json:"publicKeyJwk"`
}

// ParseDocument reads a DID document (JSON or JSON-LD) for did: its
// verification methods with Ed25519 or P-256 keys and its verification
// relationships. Methods with other key types are skipped, not fatal: a
// document may list keys we never need.
func ParseDocument(did string, raw []byte) (*Document, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%w: DID document is not a JSON object: %v", ErrInvalid, err)
	}
	var id string
	if err := json.Unmarshal(doc["id"], &id); err != nil || id != did {
		return nil, fmt.Errorf("%w: DID document id %q is not %s", ErrInvalid, id, did)
	}
	out := &Document{ID: did, Methods: map[string]*VerificationMethod{}, Relationships: map[string][]string{}}
	var methods []json.RawMessage
	for _, field := range []string{"verificationMethod", "publicKey"} {
		if len(doc[field]) == 0 {
			continue
		}
		var ms []json.RawMessage
		if err := json.Unmarshal(doc[field], &ms); err != nil {
			return nil, fmt.Errorf("%w: %s is not an array", ErrInvalid, field)
		}
		methods = append(methods, ms...)
	}
	for _, m := range methods {
		out.addMethod(m)
	}
	for _, rel := range relationshipNames {
		if len(doc[rel]) == 0 {
			continue
		}
		var entries []json.RawMessage
		if err := json.Unmarshal(doc[rel], &entries); err != nil {
			return nil, fmt.Errorf("%w: %s is not an array", ErrInvalid, rel)
		}
		for _, e := range entries {
			var ref string
			if json.Unmarshal(e, &ref) == nil {
				out.Relationships[rel] = append(out.Relationships[rel], absolute(did, ref))
				continue
			}
			// An embedded method belongs to this relationship only.
			if vm := out.addMethod(e); vm != nil {
				out.Relationships[rel] = append(out.Relationships[rel], vm.ID)
			}
		}
	}
	return out, nil
}

// addMethod parses one method and records it; nil when it is unusable.
func (d *Document) addMethod(raw json.RawMessage) *VerificationMethod {
	if len(d.Methods) >= MaxMethods {
		return nil
	}
	var m rawMethod
	if err := json.Unmarshal(raw, &m); err != nil || m.ID == "" {
		return nil
	}
	pub, err := methodKey(&m)
	if err != nil {
		return nil
	}
	// The method speaks for the DID whose document lists it, whatever its
	// "controller" claims: a document is only its own DID's word, so
	// did:web:attacker must not make its key another DID's by naming that
	// DID as the key's controller. (DID Core lets a controller be another
	// DID, but then only that DID's own document could confirm it; a
	// proof's signer is taken to be the DID the key was resolved from.)
	vm := &VerificationMethod{ID: absolute(d.ID, m.ID), Type: m.Type, Controller: d.ID, PublicKey: pub}
	d.Methods[vm.ID] = vm
	return vm
}

// methodKey reads the public key of a method in any of its three spellings.
func methodKey(m *rawMethod) (crypto.PublicKey, error) {
	switch {
	case len(m.PublicKeyJwk) > 0:
		var jwk jose.JSONWebKey
		if err := json.Unmarshal(m.PublicKeyJwk, &jwk); err != nil {
			return nil, fmt.Errorf("%w: publicKeyJwk: %v", ErrInvalid, err)
		}
		return publicFromJWK(&jwk)
	case m.PublicKeyBase58 != "":
		// Ed25519VerificationKey2018: the raw 32 bytes.
		if len(m.PublicKeyBase58) > maxMultibase {
			return nil, fmt.Errorf("%w: publicKeyBase58 too long", ErrInvalid)
		}
		raw, err := base58.Decode(m.PublicKeyBase58)
		if err != nil || len(raw) != ed25519.PublicKeySize || !strings.HasPrefix(m.Type, "Ed25519") {
			return nil, fmt.Errorf("%w: publicKeyBase58 is not an Ed25519 key", ErrInvalid)
		}
		return ed25519.PublicKey(raw), nil
	case m.PublicKeyMultibase != "":
		if k, err := ParseMultikey(m.PublicKeyMultibase); err == nil {
			return k, nil
		}
		// Some Ed25519VerificationKey2018 documents put the raw key in
		// multibase without a multicodec prefix.
		if strings.HasPrefix(m.Type, "Ed25519") && strings.HasPrefix(m.PublicKeyMultibase, "z") && len(m.PublicKeyMultibase) <= maxMultibase {
			if raw, err := base58.Decode(m.PublicKeyMultibase[1:]); err == nil && len(raw) == ed25519.PublicKeySize {
				return ed25519.PublicKey(raw), nil
			}
		}
		return nil, fmt.Errorf("%w: publicKeyMultibase", ErrInvalid)
	default:
		return nil, fmt.Errorf("%w: method without a public key", ErrUnsupported)
	}
}

// absolute resolves a method reference ("#key-1") against the DID.
func absolute(did, ref string) string {
	if strings.HasPrefix(ref, "#") {
		return did + ref
	}
	return ref
}
