package proofs

import (
	"fmt"
	"strings"

	"github.com/proofgate/proofgate/internal/jsonpath"
	"github.com/proofgate/proofgate/internal/pefilter"
)

// What an input descriptor's constraints.fields ask of a credential.

// signsMeaning reports whether cred is a JSON-LD credential whose proofs
// sign its canonical RDF (every Data Integrity suite but the JCS ones,
// and the older signature suites), in which its arrays are sets: their
// order is the holder's to choose. A JWT credential's claims (no proof
// member) and a JCS-signed one have their order signed.
func signsMeaning(cred map[string]any) bool {
	var proofs []any
	switch p := cred["proof"].(type) {
	case map[string]any:
		proofs = []any{p}
	case []any:
		proofs = p
	default:
		return false
	}
	for _, p := range proofs {
		m, _ := p.(map[string]any)
		suite, _ := m["cryptosuite"].(string)
		if !strings.Contains(suite, "jcs") {
			return true
		}
	}
	return false
}

// fieldProblems checks the required constraints.fields of d against cred:
// one of each field's paths must select a value, and when the field has a
// filter, some selected value must satisfy it. The paths are the
// definition's, held to jsonpath's cost bound when it was created, and run
// on the presentation's budget.
func fieldProblems(d *peDescriptor, cred map[string]any, budget *jsonpath.Budget) []string {
	if d.Constraints == nil {
		return nil
	}
	var problems []string
	unordered := signsMeaning(cred)
	for _, f := range d.Constraints.Fields {
		if f.Optional || len(f.Path) == 0 {
			continue
		}
		var filter *pefilter.Filter
		if len(f.Filter) > 0 {
			var err error
			if filter, err = pefilter.CompileJSON(f.Filter); err != nil {
				problems = append(problems, fmt.Sprintf("input descriptor %q: the filter of field %s does not compile", d.ID, f.Path[0]))
				continue
			}
		}
		found, matched, positional := false, false, ""
		var limit error
		for _, p := range f.Path {
			path, err := jsonpath.Compile(p)
			if err != nil {
				continue // a record from before the cost bound
			}
			if unordered && path.ReadsPosition() {
				positional = p // the order it reads is the holder's
				continue
			}
			vals, err := path.Get(cred, budget)
			if err != nil {
				limit = err
				break
			}
			for _, v := range vals {
				if unordered && statesNothing(v) {
					continue // not signed: the holder may have added it
				}
				found = true
				if filter == nil || filter.Match(v) {
					matched = true
				}
			}
			if matched {
				break
			}
		}
		switch {
		case limit != nil && !matched:
			problems = append(problems, fmt.Sprintf("input descriptor %q: evaluating %s exceeded the verifier's work limit (%v)", d.ID, f.Path[0], limit))
		case !found && positional != "":
			problems = append(problems, fmt.Sprintf("input descriptor %q: %s reads a position in an array, whose order the credential's proof does not sign (a JSON-LD array is a set); select by value, e.g. with a filter", d.ID, truncate(positional, 80)))
		case !found:
			problems = append(problems, fmt.Sprintf("input descriptor %q: the credential has no %s", d.ID, f.Path[0]))
		case !matched:
			problems = append(problems, fmt.Sprintf("input descriptor %q: %s does not match the filter", d.ID, f.Path[0]))
		}
	}
	return problems
}

// statesNothing reports whether v, as a JSON-LD value, makes no RDF
// statement: null, an array of such values (an empty one too), a value
// object whose @value is null, or a @set of nothing. A proof that signs
// the canonical RDF does not sign it, so a holder can add it to an
// issuer's credential after issuance, and it must not answer a field the
// credential does not have.
func statesNothing(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case []any:
		for _, e := range v {
			if !statesNothing(e) {
				return false
			}
		}
		return true
	case map[string]any:
		if val, ok := v["@value"]; ok {
			return val == nil
		}
		if set, ok := v["@set"]; ok { // beside it only @index, which is not signed either
			return statesNothing(set)
		}
	}
	return false
}
