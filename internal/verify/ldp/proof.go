package ldp

import (
	"encoding/json"
	"fmt"
	"time"
)

// MaxProofs caps the proofs of one document (a proof set).
const MaxProofs = 4

// Proof is what a verified proof said.
type Proof struct {
	// Type is the proof type; for DataIntegrityProof "DataIntegrityProof/<cryptosuite>".
	Type string
	// VerificationMethod is the method's id as the proof names it.
	VerificationMethod string
	// Controller is the DID (or other id) that controls the key.
	Controller string
	// Purpose is the proofPurpose.
	Purpose string
	// Challenge and Domain are as the proof carries them ("" when absent;
	// Domains holds every value of an array domain).
	Challenge string
	Domains   []string
	// Created is the proof's creation time, zero when absent.
	Created time.Time
	// Expires is when the proof expires (Data Integrity's "expires"),
	// zero when absent. Verify refuses a proof past it when given the
	// time (VerifyOptions.At).
	Expires time.Time
	// RDF says the proof signs the document's canonical RDF, its meaning,
	// rather than its JSON text (JCS): then members may be respelled
	// (a term, an alias, an absolute IRI) without breaking it, and a
	// reader of the JSON must read what they mean.
	RDF bool
}

// proofMembers are the members a proof may have. The proof's options are
// signed as RDF, so a member respelled (as an absolute IRI, or an alias of
// the document's context) keeps its signature while a reader of the JSON
// would not see it: a domain so hidden would pass for no domain.
var proofMembers = map[string]bool{
	"@context": true, "id": true, "type": true, "cryptosuite": true,
	"created": true, "expires": true, "verificationMethod": true,
	"proofPurpose": true, "challenge": true, "domain": true, "nonce": true,
	"previousProof": true, "jws": true, "proofValue": true,
	"signatureValue": true, "creator": true,
}

// rawProof reads the fields of one proof object.
type rawProof struct {
	obj                map[string]any
	typ, cryptosuite   string
	verificationMethod string
	purpose            string
	challenge          string
	domains            []string
	created            time.Time
	expires            time.Time
}

// proofsOf returns the proof objects of doc (a single proof or a set).
func proofsOf(doc map[string]any) ([]map[string]any, error) {
	switch p := doc["proof"].(type) {
	case map[string]any:
		return []map[string]any{p}, nil
	case []any:
		if len(p) == 0 || len(p) > MaxProofs {
			return nil, fmt.Errorf("%w: %d proofs (1 to %d allowed)", ErrMalformed, len(p), MaxProofs)
		}
		out := make([]map[string]any, 0, len(p))
		for _, e := range p {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%w: a proof is not an object", ErrMalformed)
			}
			out = append(out, m)
		}
		return out, nil
	case nil:
		return nil, fmt.Errorf("%w: no proof", ErrMalformed)
	default:
		return nil, fmt.Errorf("%w: proof is not an object", ErrMalformed)
	}
}

func parseProof(obj map[string]any) (*rawProof, error) {
	for k := range obj {
		if !proofMembers[k] {
			return nil, fmt.Errorf("%w: the proof has a member %q this verifier does not read", ErrMalformed, truncate(k, 60))
		}
	}
	p := &rawProof{obj: obj}
	var ok bool
	if p.typ, ok = obj["type"].(string); !ok || p.typ == "" {
		return nil, fmt.Errorf("%w: proof without a type", ErrMalformed)
	}
	if cs, present := obj["cryptosuite"]; present {
		if p.cryptosuite, ok = cs.(string); !ok {
			return nil, fmt.Errorf("%w: cryptosuite is not a string", ErrMalformed)
		}
	}
	switch vm := obj["verificationMethod"].(type) {
	case string:
		p.verificationMethod = vm
	case map[string]any:
		p.verificationMethod, _ = vm["id"].(string)
	}
	if p.verificationMethod == "" {
		return nil, fmt.Errorf("%w: proof without a verificationMethod", ErrMalformed)
	}
	if p.purpose, ok = obj["proofPurpose"].(string); !ok {
		return nil, fmt.Errorf("%w: proof without a proofPurpose", ErrMalformed)
	}
	if c, present := obj["challenge"]; present {
		if p.challenge, ok = c.(string); !ok {
			return nil, fmt.Errorf("%w: challenge is not a string", ErrMalformed)
		}
	}
	switch d := obj["domain"].(type) {
	case nil:
	case string:
		p.domains = []string{d}
	case []any:
		for _, e := range d {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%w: domain is not a string", ErrMalformed)
			}
			p.domains = append(p.domains, s)
		}
	default:
		return nil, fmt.Errorf("%w: domain is not a string", ErrMalformed)
	}
	if c, present := obj["created"]; present {
		s, _ := c.(string)
		t, err := ParseTime(s)
		if err != nil {
			return nil, fmt.Errorf("%w: created: %v", ErrMalformed, err)
		}
		p.created = t
	}
	if e, present := obj["expires"]; present {
		s, _ := e.(string)
		t, err := ParseTime(s)
		if err != nil {
			return nil, fmt.Errorf("%w: expires: %v", ErrMalformed, err)
		}
		p.expires = t
	}
	return p, nil
}

// ParseTime reads an XML Schema dateTime as credentials use it: RFC 3339,
// or without a zone (ACA-Py writes "2021-04-28T12:06:32.976797"), which is
// read as UTC.
func ParseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a dateTime", truncate(s, 40))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// clone copies a decoded JSON object deeply enough to edit its top level
// and its proof without touching the caller's.
func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Decode reads a JSON object for signing or verifying.
func Decode(raw []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w: not a JSON object", ErrMalformed)
	}
	return m, nil
}
