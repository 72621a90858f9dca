package proofs

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/proofgate/proofgate/internal/anoncreds/names"
)

// anonCredsProof is the part of an AnonCreds presentation (libindy
// proof JSON) the structural check reads.
type anonCredsProof struct {
	Proof          *json.RawMessage `json:"proof"`
	RequestedProof *struct {
		RevealedAttrs      map[string]revealedAttr      `json:"revealed_attrs"`
		RevealedAttrGroups map[string]revealedAttrGroup `json:"revealed_attr_groups"`
		UnrevealedAttrs    map[string]subProofRef       `json:"unrevealed_attrs"`
		SelfAttestedAttrs  map[string]string            `json:"self_attested_attrs"`
		Predicates         map[string]subProofRef       `json:"predicates"`
	} `json:"requested_proof"`
	Identifiers []credIdentifiers `json:"identifiers"`
}

type subProofRef struct {
	SubProofIndex *int `json:"sub_proof_index"`
}

type revealedAttr struct {
	SubProofIndex *int   `json:"sub_proof_index"`
	Raw           string `json:"raw"`
	Encoded       string `json:"encoded"`
}

type revealedAttrGroup struct {
	SubProofIndex *int `json:"sub_proof_index"`
	Values        map[string]struct {
		Raw     string `json:"raw"`
		Encoded string `json:"encoded"`
	} `json:"values"`
}

type credIdentifiers struct {
	SchemaID  string `json:"schema_id"`
	CredDefID string `json:"cred_def_id"`
	RevRegID  string `json:"rev_reg_id"`
}

// checkIndyProof checks an AnonCreds proof against our AnonCreds proof request:
// every attribute and predicate referent answered from a credential that
// meets the referent's restrictions, as far as those can be read from the
// proof's identifiers without a ledger.
func checkIndyProof(reqRaw, proofRaw []byte) []string {
	var req AnonCredsProofRequest
	if err := json.Unmarshal(reqRaw, &req); err != nil {
		return []string{"the stored proof request cannot be read"}
	}
	var p anonCredsProof
	if err := json.Unmarshal(proofRaw, &p); err != nil || p.Proof == nil || p.RequestedProof == nil {
		return []string{"the attachment is not an AnonCreds proof (proof and requested_proof are required)"}
	}
	rp := p.RequestedProof
	var problems []string
	// index checks a sub_proof_index and returns the credential's
	// identifiers, or a problem.
	index := func(ref string, i *int) (credIdentifiers, bool) {
		if i == nil || *i < 0 || *i >= len(p.Identifiers) {
			problems = append(problems, fmt.Sprintf("referent %q: sub_proof_index is missing or out of range", ref))
			return credIdentifiers{}, false
		}
		return p.Identifiers[*i], true
	}
	// revealed returns the raw values revealed from sub proof i, by
	// attribute name, for attr::<name>::value restrictions.
	revealed := func(i int) map[string]string {
		vals := map[string]string{}
		for ref, a := range rp.RevealedAttrs {
			if a.SubProofIndex != nil && *a.SubProofIndex == i {
				if attr, ok := req.RequestedAttributes[ref]; ok && attr.Name != "" {
					vals[names.Attr(attr.Name)] = a.Raw
				}
			}
		}
		for _, g := range rp.RevealedAttrGroups {
			if g.SubProofIndex != nil && *g.SubProofIndex == i {
				for name, v := range g.Values {
					vals[names.Attr(name)] = v.Raw
				}
			}
		}
		return vals
	}

	for _, ref := range sortedKeys(req.RequestedAttributes) {
		attr := req.RequestedAttributes[ref]
		var (
			idx *int
			ok  bool
		)
		if len(attr.Names) > 0 {
			g, found := rp.RevealedAttrGroups[ref]
			if !found {
				problems = append(problems, fmt.Sprintf("requested attribute group %q (%s) is not in revealed_attr_groups", ref, strings.Join(attr.Names, ", ")))
				continue
			}
			for _, n := range attr.Names {
				if _, has := g.Values[n]; !has {
					problems = append(problems, fmt.Sprintf("requested attribute group %q lacks %q", ref, n))
				}
			}
			idx = g.SubProofIndex
		} else if a, found := rp.RevealedAttrs[ref]; found {
			idx = a.SubProofIndex
		} else if u, found := rp.UnrevealedAttrs[ref]; found {
			idx = u.SubProofIndex
		} else if _, found := rp.SelfAttestedAttrs[ref]; found {
			if len(attr.Restrictions) > 0 {
				problems = append(problems, fmt.Sprintf("requested attribute %q (%s) is self-attested but has restrictions", ref, attr.Name))
			}
			continue
		} else {
			problems = append(problems, fmt.Sprintf("requested attribute %q (%s) is not in the proof", ref, attr.Name))
			continue
		}
		ids, ok := index(ref, idx)
		if ok && !restrictionsMet(attr.Restrictions, ids, revealed(*idx)) {
			problems = append(problems, fmt.Sprintf("requested attribute %q: the credential does not meet its restrictions", ref))
		}
	}
	for _, ref := range sortedKeys(req.RequestedPredicates) {
		pred := req.RequestedPredicates[ref]
		pr, found := rp.Predicates[ref]
		if !found {
			problems = append(problems, fmt.Sprintf("requested predicate %q (%s %s %d) is not in the proof", ref, pred.Name, pred.PType, pred.PValue))
			continue
		}
		ids, ok := index(ref, pr.SubProofIndex)
		if ok && !restrictionsMet(pred.Restrictions, ids, revealed(*pr.SubProofIndex)) {
			problems = append(problems, fmt.Sprintf("requested predicate %q: the credential does not meet its restrictions", ref))
		}
	}
	return problems
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// restrictionsMet evaluates AnonCreds restrictions (an OR of AND objects)
// against a credential's identifiers. Keys that need the ledger when the
// identifiers are not legacy Indy ids (schema_name of a did:web schema,
// say) cannot be decided here and count as met: this is a structural
// check, not a verification.
func restrictionsMet(restrictions []map[string]string, ids credIdentifiers, revealed map[string]string) bool {
	if len(restrictions) == 0 {
		return true
	}
	for _, r := range restrictions {
		if restrictionMet(r, ids, revealed) {
			return true
		}
	}
	return false
}

func restrictionMet(r map[string]string, ids credIdentifiers, revealed map[string]string) bool {
	schemaIssuer, schemaName, schemaVersion, legacySchema := names.Schema(ids.SchemaID)
	issuer, _, legacyCredDef := names.CredDef(ids.CredDefID)
	for key, want := range r {
		switch key {
		case "schema_id":
			if ids.SchemaID != want {
				return false
			}
		case "cred_def_id":
			if ids.CredDefID != want {
				return false
			}
		case "rev_reg_id":
			if ids.RevRegID != want {
				return false
			}
		case "schema_issuer_did", "schema_issuer_id":
			if legacySchema && schemaIssuer != want {
				return false
			}
		case "schema_name":
			if legacySchema && schemaName != want {
				return false
			}
		case "schema_version":
			if legacySchema && schemaVersion != want {
				return false
			}
		case "issuer_did", "issuer_id":
			if legacyCredDef && issuer != want {
				return false
			}
		default:
			name, kind, ok := names.AttrTag(key)
			if !ok {
				return false // not an AnonCreds restriction
			}
			v, present := revealed[names.Attr(name)]
			// A marker or value on an attribute this proof does not
			// reveal cannot be seen without the CL proof; count as met.
			if present && kind == "value" && v != want {
				return false
			}
		}
	}
	return true
}
