package wallet

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"crypto/sha256"

	"github.com/google/uuid"
)

// SampleIssuer is the issuer DID of the unsigned sample credentials.
const SampleIssuer = "did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH"

// UnsignedCredential is a W3C credential (VC data model 1.1) of
// SampleIssuer about subject, with a proof block that carries no valid
// signature: enough for the structural check, refused by a verifier.
func UnsignedCredential(subject map[string]any) map[string]any {
	return map[string]any{
		"@context":          []any{"https://www.w3.org/2018/credentials/v1"},
		"type":              []any{"VerifiableCredential"},
		"issuer":            SampleIssuer,
		"issuanceDate":      "2024-01-01T00:00:00Z",
		"credentialSubject": subject,
		"proof":             map[string]any{"type": "Ed25519Signature2018", "proofPurpose": "assertionMethod", "jws": "eyJhbGciOiJFZERTQSJ9..c2ln"},
	}
}

// Submitted is one credential a presentation submits for an input
// descriptor.
type Submitted struct {
	DescriptorID string
	Credential   map[string]any
}

// UnsignedVP is a verifiable presentation answering a DIF request with the
// credentials given (descriptor_map paths $.verifiableCredential[i]) and a
// presentation proof that carries the request's challenge and domain but
// no valid signature.
func UnsignedVP(inv *Invitation, creds ...Submitted) map[string]any {
	vp := vpSkeleton(inv, creds)
	vp["proof"] = map[string]any{
		"type":         "Ed25519Signature2018",
		"proofPurpose": "authentication",
		"challenge":    inv.Challenge,
		"domain":       inv.Domain,
		"jws":          "eyJhbGciOiJFZERTQSJ9..c2ln",
	}
	return vp
}

func vpSkeleton(inv *Invitation, creds []Submitted) map[string]any {
	dm := make([]any, 0, len(creds))
	vcs := make([]any, 0, len(creds))
	for i, c := range creds {
		dm = append(dm, map[string]any{"id": c.DescriptorID, "format": "ldp_vc", "path": fmt.Sprintf("$.verifiableCredential[%d]", i)})
		vcs = append(vcs, c.Credential)
	}
	return map[string]any{
		"@context": []any{"https://www.w3.org/2018/credentials/v1"},
		"type":     []any{"VerifiablePresentation"},
		"presentation_submission": map[string]any{
			"id":             uuid.NewString(),
			"definition_id":  inv.DefinitionID,
			"descriptor_map": dm,
		},
		"verifiableCredential": vcs,
	}
}

// SampleIndyProof is an AnonCreds proof (structure only, no valid CL
// proof) revealing attr1 = "Alice" and answering pred1, from a credential
// of schema L5u3AaDjGhV2AjL6mwAjLm:2:employee:1.0.
func SampleIndyProof() map[string]any {
	return map[string]any{
		"proof": map[string]any{"proofs": []any{map[string]any{}}, "aggregated_proof": map[string]any{}},
		"requested_proof": map[string]any{
			"revealed_attrs":      map[string]any{"attr1": map[string]any{"sub_proof_index": 0, "raw": "Alice", "encoded": EncodeAttr("Alice")}},
			"self_attested_attrs": map[string]any{},
			"unrevealed_attrs":    map[string]any{},
			"predicates":          map[string]any{"pred1": map[string]any{"sub_proof_index": 0}},
		},
		"identifiers": []any{map[string]any{
			"schema_id":   "L5u3AaDjGhV2AjL6mwAjLm:2:employee:1.0",
			"cred_def_id": "L5u3AaDjGhV2AjL6mwAjLm:3:CL:12:default",
			"rev_reg_id":  nil,
			"timestamp":   nil,
		}},
	}
}

// EncodeAttr is the AnonCreds encoding of a raw attribute value: a 32-bit
// integer as itself, anything else as the decimal of its SHA-256.
func EncodeAttr(raw string) string {
	var n big.Int
	if _, ok := n.SetString(raw, 10); ok && n.IsInt64() && n.Int64() >= -(1<<31) && n.Int64() < 1<<31 {
		return n.String()
	}
	sum := sha256.Sum256([]byte(raw))
	return new(big.Int).SetBytes(sum[:]).String()
}

// AutoPresentation builds a presentation that answers inv's request
// structurally, for a demo holder: for DIF one unsigned credential per
// input descriptor holding every required $.credentialSubject field (the
// value from claims by the field's last name, else the filter's const or
// first enum value, else "demo"); for AnonCreds every requested attribute
// revealed (from claims, else "demo") and every predicate answered, from
// one credential whose identifiers meet the first restriction asked. The
// signatures are not valid: a verifier that checks them refuses it.
func AutoPresentation(inv *Invitation, claims map[string]any) (any, error) {
	if inv.IsDIF() {
		var def struct {
			InputDescriptors []struct {
				ID          string `json:"id"`
				Constraints struct {
					Fields []struct {
						Path   []string `json:"path"`
						Filter struct {
							Const any   `json:"const"`
							Enum  []any `json:"enum"`
						} `json:"filter"`
						Optional bool `json:"optional"`
					} `json:"fields"`
				} `json:"constraints"`
			} `json:"input_descriptors"`
		}
		if err := json.Unmarshal(inv.Definition, &def); err != nil {
			return nil, fmt.Errorf("presentation definition: %w", err)
		}
		var creds []Submitted
		for _, d := range def.InputDescriptors {
			subject := map[string]any{"id": "did:example:holder"}
			for _, f := range d.Constraints.Fields {
				if f.Optional || len(f.Path) == 0 {
					continue
				}
				name, ok := strings.CutPrefix(f.Path[0], "$.credentialSubject.")
				if !ok || strings.ContainsAny(name, ".[*") {
					continue
				}
				var v any = "demo"
				switch {
				case claims[name] != nil:
					v = claims[name]
				case f.Filter.Const != nil:
					v = f.Filter.Const
				case len(f.Filter.Enum) > 0:
					v = f.Filter.Enum[0]
				}
				subject[name] = v
			}
			creds = append(creds, Submitted{DescriptorID: d.ID, Credential: UnsignedCredential(subject)})
		}
		return UnsignedVP(inv, creds...), nil
	}
	pr := inv.ProofRequest
	ids := map[string]any{
		"schema_id":   "L5u3AaDjGhV2AjL6mwAjLm:2:demo:1.0",
		"cred_def_id": "L5u3AaDjGhV2AjL6mwAjLm:3:CL:12:default",
		"rev_reg_id":  nil,
		"timestamp":   nil,
	}
	restrict := func(rs []map[string]string) {
		if len(rs) == 0 {
			return
		}
		for k, v := range rs[0] {
			if k == "schema_id" || k == "cred_def_id" {
				ids[k] = v
			}
		}
	}
	value := func(name string) string {
		if v, ok := claims[name]; ok {
			return fmt.Sprint(v)
		}
		return "demo"
	}
	revealed, groups, preds := map[string]any{}, map[string]any{}, map[string]any{}
	for _, ref := range sortedKeys(pr.RequestedAttributes) {
		a := pr.RequestedAttributes[ref]
		restrict(a.Restrictions)
		if len(a.Names) > 0 {
			vals := map[string]any{}
			for _, n := range a.Names {
				vals[n] = map[string]any{"raw": value(n), "encoded": EncodeAttr(value(n))}
			}
			groups[ref] = map[string]any{"sub_proof_index": 0, "values": vals}
			continue
		}
		revealed[ref] = map[string]any{"sub_proof_index": 0, "raw": value(a.Name), "encoded": EncodeAttr(value(a.Name))}
	}
	for _, ref := range sortedKeys(pr.RequestedPredicates) {
		restrict(pr.RequestedPredicates[ref].Restrictions)
		preds[ref] = map[string]any{"sub_proof_index": 0}
	}
	return map[string]any{
		"proof": map[string]any{"proofs": []any{map[string]any{}}, "aggregated_proof": map[string]any{}},
		"requested_proof": map[string]any{
			"revealed_attrs":       revealed,
			"revealed_attr_groups": groups,
			"self_attested_attrs":  map[string]any{},
			"unrevealed_attrs":     map[string]any{},
			"predicates":           preds,
		},
		"identifiers": []any{ids},
	}, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
