package anoncreds

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/proofgate/proofgate/internal/anoncreds/cl"
	"github.com/proofgate/proofgate/internal/anoncreds/names"
	"github.com/proofgate/proofgate/internal/verify"
)

// checkStructure checks that the presentation answers exactly the
// request's referents, each from a credential of the presentation; that
// every revealed value is the one the CL proof carries and the standard
// encoding of its raw value; and that every requested predicate is proven
// as requested by the sub proof it points at.
func checkStructure(req *Request, pres *Presentation, proof *cl.Proof) []problem {
	var problems []problem
	n := len(pres.Identifiers)
	rp := &pres.RequestedProof
	inRange := func(kind, ref string, i int) bool {
		if i < 0 || i >= n {
			problems = append(problems, malformed("%s %q: sub_proof_index %d is out of range", kind, ref, i))
			return false
		}
		return true
	}

	answered := map[string]int{}
	for ref, a := range rp.RevealedAttrs {
		answered[ref]++
		if !inRange("revealed attribute", ref, a.SubProofIndex) {
			continue
		}
		info, ok := req.RequestedAttributes[ref]
		if !ok || info.Name == "" {
			problems = append(problems, malformed("revealed attribute %q: the request has no attribute referent of that name with a name", ref))
			continue
		}
		problems = append(problems, checkRevealed(ref, info.Name, a.Raw, a.Encoded, &proof.Sub[a.SubProofIndex])...)
	}
	for ref, g := range rp.RevealedAttrGroups {
		answered[ref]++
		if !inRange("revealed attribute group", ref, g.SubProofIndex) {
			continue
		}
		info, ok := req.RequestedAttributes[ref]
		if !ok || len(info.Names) == 0 {
			problems = append(problems, malformed("revealed attribute group %q: the request has no attribute referent of that name with names", ref))
			continue
		}
		if len(g.Values) != len(info.Names) {
			problems = append(problems, malformed("revealed attribute group %q: %d values for %d requested names", ref, len(g.Values), len(info.Names)))
			continue
		}
		for _, name := range info.Names {
			val, ok := g.Values[name]
			if !ok {
				problems = append(problems, malformed("revealed attribute group %q lacks %q", ref, name))
				continue
			}
			problems = append(problems, checkRevealed(ref, name, val.Raw, val.Encoded, &proof.Sub[g.SubProofIndex])...)
		}
	}
	// A names referent asks for its values: only revealed_attr_groups
	// answers it (as the reference requires of a restricted one).
	namesGroup := func(kind, ref string) {
		if info, ok := req.RequestedAttributes[ref]; ok && len(info.Names) > 0 {
			problems = append(problems, malformed("%s %q: the request asks the group's values, which only revealed_attr_groups gives", kind, ref))
		}
	}
	for ref, u := range rp.UnrevealedAttrs {
		answered[ref]++
		namesGroup("unrevealed attribute", ref)
		inRange("unrevealed attribute", ref, u.SubProofIndex)
		// That the credential has the attribute is checked against its
		// schema (checkUnrevealed), once that is known.
	}
	for ref := range rp.SelfAttestedAttrs {
		answered[ref]++
		namesGroup("self-attested attribute", ref)
	}
	for ref, c := range answered {
		// A referent answered twice (revealed and unrevealed, say) is taken,
		// as the reference takes it; every answer is checked.
		if _, ok := req.RequestedAttributes[ref]; !ok && c > 0 {
			problems = append(problems, malformed("the presentation answers attribute referent %q, which the request does not ask", ref))
		}
	}
	for _, ref := range sortedKeys(req.RequestedAttributes) {
		if answered[ref] == 0 {
			problems = append(problems, malformed("requested attribute %q is not in the presentation", ref))
		}
	}

	for ref := range rp.Predicates {
		if _, ok := req.RequestedPredicates[ref]; !ok {
			problems = append(problems, malformed("the presentation answers predicate referent %q, which the request does not ask", ref))
		}
	}
	for _, ref := range sortedKeys(req.RequestedPredicates) {
		p := req.RequestedPredicates[ref]
		got, ok := rp.Predicates[ref]
		if !ok {
			problems = append(problems, malformed("requested predicate %q (%s %s %d) is not in the presentation", ref, p.Name, p.PType, p.PValue))
			continue
		}
		if !inRange("predicate", ref, got.SubProofIndex) {
			continue
		}
		want := cl.Predicate{Attr: names.Attr(p.Name), Type: predicateTypes[p.PType], Value: p.PValue}
		if want.Type == "" {
			problems = append(problems, malformed("requested predicate %q: p_type %q is not >=, >, <= or <", ref, p.PType))
			continue
		}
		if !provesPredicate(&proof.Sub[got.SubProofIndex], want) {
			problems = append(problems, problem{verify.ReasonPredicate, fmt.Sprintf("requested predicate %q (%s %s %d): sub proof %d proves no such predicate", ref, p.Name, p.PType, p.PValue, got.SubProofIndex)})
		}
	}
	// Maps were walked in random order: report in a stable one.
	sort.SliceStable(problems, func(i, j int) bool { return problems[i].text < problems[j].text })
	return problems
}

// checkUnrevealed checks that every unrevealed attribute is one of the
// credential it is pointed at: an attribute of that credential's schema,
// hence one its equality proof hides (or reveals) and the CL challenge
// covers. An m̂ the proof carries is no evidence: the prover can add one
// for any name (cl.Verify refuses that too). checkStructure made sure
// every sub_proof_index is in range.
func checkUnrevealed(req *Request, pres *Presentation, facts []*credFacts) []problem {
	var problems []problem
	for _, ref := range sortedKeys(pres.RequestedProof.UnrevealedAttrs) {
		i := pres.RequestedProof.UnrevealedAttrs[ref].SubProofIndex
		info := req.RequestedAttributes[ref]
		if info.Name != "" && !facts[i].attrs[names.Attr(info.Name)] {
			problems = append(problems, malformed("unrevealed attribute %q (%s): credential %d (%s) has no such attribute", ref, info.Name, i, pres.Identifiers[i].CredDefID))
		}
	}
	return problems
}

// checkRevealed checks one revealed value: encoded is the value the CL
// proof reveals for the attribute, and the standard encoding of raw.
func checkRevealed(ref, name, raw, encoded string, sp *cl.SubProof) []problem {
	inProof, ok := sp.Eq.Revealed[names.Attr(name)]
	if !ok {
		return []problem{{verify.ReasonSignature, fmt.Sprintf("revealed attribute %q (%s) is not revealed by the proof", ref, name)}}
	}
	// As the reference compares: an encoded value that reads as a 32-bit
	// integer in its canonical form ("007" is 7), anything else as written.
	if normalizeEncoded(encoded) != inProof.String() {
		return []problem{{verify.ReasonEncoding, fmt.Sprintf("revealed attribute %q (%s): encoded value %s differs from the proof's", ref, name, encoded)}}
	}
	if Encode(raw) != normalizeEncoded(encoded) {
		return []problem{{verify.ReasonEncoding, fmt.Sprintf("revealed attribute %q (%s): raw value %q does not encode to %s", ref, name, raw, encoded)}}
	}
	return nil
}

// normalizeEncoded is an encoded value in the form the reference compares
// (anoncreds-rs normalize_encoded_attr): a 32-bit integer in canonical
// decimal, anything else unchanged.
func normalizeEncoded(encoded string) string {
	if v, err := strconv.ParseInt(encoded, 10, 32); err == nil {
		return strconv.FormatInt(v, 10)
	}
	return encoded
}

// provesPredicate tells whether a sub proof has a GE proof of exactly
// the requested predicate.
func provesPredicate(sp *cl.SubProof, want cl.Predicate) bool {
	for _, ge := range sp.GE {
		if names.Attr(ge.Predicate.Attr) == want.Attr && ge.Predicate.Type == want.Type && ge.Predicate.Value == want.Value {
			return true
		}
	}
	return false
}

// attrIndexes returns the sub proofs an attribute referent is answered
// from (none when it is only self-attested); checkStructure made sure
// they are in range.
func attrIndexes(pres *Presentation, ref string) []int {
	rp := &pres.RequestedProof
	var out []int
	if a, ok := rp.RevealedAttrs[ref]; ok {
		out = append(out, a.SubProofIndex)
	}
	if g, ok := rp.RevealedAttrGroups[ref]; ok {
		out = append(out, g.SubProofIndex)
	}
	if u, ok := rp.UnrevealedAttrs[ref]; ok {
		out = append(out, u.SubProofIndex)
	}
	return out
}

// revealedValues collects the raw values revealed from sub proof i, by
// canonical attribute name.
func revealedValues(req *Request, pres *Presentation, i int) map[string]string {
	vals := map[string]string{}
	for ref, a := range pres.RequestedProof.RevealedAttrs {
		if a.SubProofIndex == i {
			vals[names.Attr(req.RequestedAttributes[ref].Name)] = a.Raw
		}
	}
	for _, g := range pres.RequestedProof.RevealedAttrGroups {
		if g.SubProofIndex == i {
			for name, v := range g.Values {
				vals[names.Attr(name)] = v.Raw
			}
		}
	}
	return vals
}

// interval is the most stringent of the non_revoked intervals that apply
// to one credential.
type interval struct{ from, to uint64 }

func (iv interval) contains(ts uint64) bool { return ts >= iv.from && ts <= iv.to }

// unusedSubProof returns the first sub proof no referent points at, or
// -1 when every one answers a referent. checkStructure made sure every
// sub_proof_index is in range.
func unusedSubProof(pres *Presentation) int {
	used := make([]bool, len(pres.Identifiers))
	rp := &pres.RequestedProof
	for _, a := range rp.RevealedAttrs {
		used[a.SubProofIndex] = true
	}
	for _, g := range rp.RevealedAttrGroups {
		used[g.SubProofIndex] = true
	}
	for _, u := range rp.UnrevealedAttrs {
		used[u.SubProofIndex] = true
	}
	for _, p := range rp.Predicates {
		used[p.SubProofIndex] = true
	}
	for i, ok := range used {
		if !ok {
			return i
		}
	}
	return -1
}

// nonRevokedFor returns the interval credential i must prove
// non-revocation for: the most stringent of the intervals of the
// referents it answers, each referent's own or else the request's global
// one (as the specification and the reference take them: a referent
// without an interval of its own is held to the global one, whatever the
// credential's other referents ask); asked is false when none applies.
func nonRevokedFor(req *Request, pres *Presentation, i int) (iv interval, asked bool) {
	iv = interval{0, math.MaxUint64}
	narrow := func(in *Interval) {
		if in == nil {
			return
		}
		asked = true
		if in.From != nil && *in.From > iv.from {
			iv.from = *in.From
		}
		if in.To != nil && *in.To < iv.to {
			iv.to = *in.To
		}
	}
	own := func(in *Interval) {
		if in == nil {
			in = req.NonRevoked
		}
		narrow(in)
	}
	rp := &pres.RequestedProof
	for ref, a := range req.RequestedAttributes {
		for _, k := range attrIndexes(pres, ref) {
			if k == i {
				own(a.NonRevoked)
			}
		}
	}
	for ref, p := range req.RequestedPredicates {
		if got, ok := rp.Predicates[ref]; ok && got.SubProofIndex == i {
			own(p.NonRevoked)
		}
	}
	return iv, asked
}
