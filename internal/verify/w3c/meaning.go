package w3c

import (
	"context"
	"slices"

	"github.com/proofgate/proofgate/internal/verify"
)

// credNS is the namespace of the credential terms of the VC data model
// (v1 and v2).
const credNS = "https://www.w3.org/2018/credentials#"

// checkMeaning compares what the checks read from a credential's JSON
// members (issuer, subject ids, validity dates, credentialStatus) with
// what the signed credential means. A proof over the canonical RDF stays
// valid when a member is respelled (as an absolute IRI, an alias an
// inline context defines, "@id" for "id"); a holder could so hide an
// expiry, a status entry or the subject a credential is bound to from a
// reader of the JSON. The credential's expanded form says what each
// member means, whatever its spelling: they must agree, else the
// credential is refused as malformed.
func (v *Verifier) checkMeaning(ctx context.Context, cred map[string]any, sc *signedCredential) error {
	expanded, err := v.canon.Expand(ctx, cred)
	if err != nil {
		return err
	}
	if len(expanded) != 1 {
		return spelling("the credential is not one JSON-LD node")
	}
	node, _ := expanded[0].(map[string]any)
	if ids := nodeIDs(node[credNS+"issuer"]); len(ids) != 1 || ids[0] != sc.issuer {
		return spelling("its issuer is spelled so that a reader of its members does not see it")
	}
	subjects := nodeIDs(node[credNS+"credentialSubject"])
	if !sameSet(subjects, sc.subjects) {
		return spelling("the ids of its credentialSubject are spelled so that a reader of its members does not see them")
	}
	for _, name := range []string{"issuanceDate", "validFrom", "expirationDate", "validUntil"} {
		vals := literals(node[credNS+name])
		compact, present := cred[name].(string)
		if present != (len(vals) > 0) || present && (len(vals) != 1 || vals[0] != compact) {
			return spelling(name + " is spelled so that a reader of its members does not see it")
		}
	}
	if n, _ := node[credNS+"credentialStatus"].([]any); len(n) != entries(cred["credentialStatus"]) {
		return spelling("its credentialStatus is spelled so that a reader of its members does not see it")
	}
	return nil
}

func spelling(detail string) error {
	return detailError{verify.ReasonMalformed, detail}
}

// nodeIDs are the @id of the nodes of an expanded property's values.
func nodeIDs(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			if id, ok := m["@id"].(string); ok {
				out = append(out, id)
			}
		}
	}
	return out
}

// literals are the @value strings of an expanded property's values.
func literals(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			if s, ok := m["@value"].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// entries counts a member given as one value or an array.
func entries(v any) int {
	switch x := v.(type) {
	case nil:
		return 0
	case []any:
		return len(x)
	default:
		return 1
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}
