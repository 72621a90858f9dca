package proofs

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/pexcheck"
)

// unenforced names every constraint of the presentation definition of req
// that the local verifier would accept at create time but not enforce on
// the answer, so that the create is refused (400 naming each, as the
// caller wrote the definition) rather than a presentation passed that the
// definition says must fail: constraints.is_holder and same_subject with
// directive "required", and subject_is_issuer and limit_disclosure
// "required". ("preferred" asks nothing that must fail, and is accepted.)
// Holder binding, which holder_binding applies to every credential whose
// subject is a DID, is the local verifier's answer to is_holder. Last, it
// names the formats the local verifier could verify no answer in
// (pexcheck.UnverifiableFormat).
func unenforced(req *backend.OOBRequest) []backend.UnsupportedError {
	var d struct {
		InputDescriptors []struct {
			Constraints struct {
				IsHolder        []struct{ Directive string } `json:"is_holder"`
				SameSubject     []struct{ Directive string } `json:"same_subject"`
				SubjectIsIssuer string                       `json:"subject_is_issuer"`
				LimitDisclosure string                       `json:"limit_disclosure"`
			} `json:"constraints"`
		} `json:"input_descriptors"`
	}
	if json.Unmarshal(req.PresentationDefinition, &d) != nil {
		return nil // validated at create time; nothing to add here
	}
	var out []backend.UnsupportedError
	for i, in := range d.InputDescriptors {
		at := func(rest string) string { return req.DescriptorField(i, "constraints."+rest) }
		c := in.Constraints
		for j, h := range c.IsHolder {
			if h.Directive == "required" {
				out = append(out, backend.UnsupportedError{Field: at(fmt.Sprintf("is_holder[%d].directive", j)),
					Message: `"required" is not enforced by the local verifier: its holder binding (holder_binding) already requires the signer of the presentation to be every DID subject; use "preferred" or leave is_holder out`})
			}
		}
		for j, s := range c.SameSubject {
			if s.Directive == "required" {
				out = append(out, backend.UnsupportedError{Field: at(fmt.Sprintf("same_subject[%d].directive", j)),
					Message: `"required" is not enforced by the local verifier; use "preferred" or leave same_subject out`})
			}
		}
		if c.SubjectIsIssuer == "required" {
			out = append(out, backend.UnsupportedError{Field: at("subject_is_issuer"),
				Message: `"required" is not enforced by the local verifier (self-issued credentials); use "preferred" or leave it out`})
		}
		if c.LimitDisclosure == "required" {
			out = append(out, backend.UnsupportedError{Field: at("limit_disclosure"),
				Message: `"required" is not enforced by the local verifier (no selective-disclosure proofs); use "preferred" or leave it out`})
		}
	}
	return append(out, pexcheck.UnverifiableFormat(req)...)
}

// unmeetableRestriction names every rev_reg_id restriction of an indy
// request: the local verifier never meets one (the registry a
// presentation names is the prover's word until non-revocation proofs are
// verified; the reference refuses the filter), so a request with one is
// refused at create time (400 naming each) rather than made into a record
// that no presentation can answer, or one of whose alternatives is dead.
func unmeetableRestriction(r *backend.IndyProofRequest) []backend.UnsupportedError {
	if r == nil {
		return nil
	}
	var out []backend.UnsupportedError
	check := func(kind, ref string, restrictions []map[string]string) {
		for i, rs := range restrictions {
			if _, ok := rs["rev_reg_id"]; ok {
				out = append(out, backend.UnsupportedError{Field: backend.IndyReferentField(kind, ref, fmt.Sprintf("restrictions[%d].rev_reg_id", i)),
					Message: "never met by the local verifier: the revocation registry a presentation names is not proven (non-revocation proofs are not verified); restrict by cred_def_id instead"})
			}
		}
	}
	for _, ref := range slices.Sorted(maps.Keys(r.RequestedAttributes)) {
		check("requested_attributes", ref, r.RequestedAttributes[ref].Restrictions)
	}
	for _, ref := range slices.Sorted(maps.Keys(r.RequestedPredicates)) {
		check("requested_predicates", ref, r.RequestedPredicates[ref].Restrictions)
	}
	return out
}
