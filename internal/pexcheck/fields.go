package pexcheck

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/proofgate/proofgate/internal/jsonpath"
	"github.com/proofgate/proofgate/internal/pefilter"
	"github.com/proofgate/proofgate/internal/textcut"
)

// What an input descriptor's constraints.fields ask of a credential.

// MaxFilterWork is the work (pefilter units, about a schema evaluation
// each: ~0.3 µs at worst on a slow core) that the field filters of one
// presentation may do together, about a second at most. An honest match
// costs the filter's size times the value's: a date against a date bound
// is a few units, a whole credential of 1,000 values against a filter of
// 50 is 50,000.
const MaxFilterWork = 3_000_000

// fieldWork is what checking one presentation's fields may spend: the
// paths' node visits and the filters' work, both until the same
// deadline, PathTimeout after the check began.
type fieldWork struct {
	paths   *jsonpath.Budget
	filters *pefilter.Meter
}

func newFieldWork(start time.Time) *fieldWork {
	deadline := start.Add(PathTimeout)
	return &fieldWork{
		paths:   jsonpath.NewBudget(MaxPathVisits, MaxPathResults, deadline),
		filters: pefilter.NewMeter(MaxFilterWork, deadline),
	}
}

// compiledFilters compiles the filters of d's fields, once per
// presentation however many descriptor_map entries name d: index i is
// field i's filter, nil when it has none or it does not compile (err).
func (d *peDescriptor) compiledFilters() []compiledFilter {
	if d.filters != nil || d.Constraints == nil {
		return d.filters
	}
	d.filters = make([]compiledFilter, len(d.Constraints.Fields))
	for i, f := range d.Constraints.Fields {
		if f.Optional || len(f.Path) == 0 || len(f.Filter) == 0 {
			continue
		}
		d.filters[i].filter, d.filters[i].err = pefilter.CompileJSON(f.Filter)
	}
	return d.filters
}

type compiledFilter struct {
	filter *pefilter.Filter
	err    error
}

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
// definition's, held to jsonpath's cost bound when it was created, and
// they and the filters run on the presentation's work. cred's numbers are
// within pefilter's bounds (Check, decodeJWTCredential).
func fieldProblems(d *peDescriptor, cred map[string]any, work *fieldWork) []string {
	if d.Constraints == nil {
		return nil
	}
	var problems []string
	unordered := signsMeaning(cred)
	filters := d.compiledFilters()
	for i, f := range d.Constraints.Fields {
		if f.Optional || len(f.Path) == 0 {
			continue
		}
		filter := filters[i].filter
		if err := filters[i].err; err != nil {
			var ref *pefilter.RefError
			if errors.As(err, &ref) {
				// A record from before references were refused at create.
				problems = append(problems, fmt.Sprintf("input descriptor %q: the filter of field %s does not compile: it refers to a schema (%s at %s), which the verifier does not evaluate", d.ID, f.Path[0], ref.Keyword, ref.Pointer))
				continue
			}
			problems = append(problems, fmt.Sprintf("input descriptor %q: the filter of field %s does not compile", d.ID, f.Path[0]))
			continue
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
			vals, err := path.Get(cred, work.paths)
			if err != nil {
				limit = err
				break
			}
			for _, v := range vals {
				if unordered && statesNothing(v) {
					continue // not signed: the holder may have added it
				}
				found = true
				if filter == nil {
					matched = true
					break
				}
				ok, err := filter.MatchWithin(v, work.filters)
				if err != nil {
					limit = err
					break
				}
				if ok {
					matched = true
					break
				}
			}
			if matched || limit != nil {
				break
			}
		}
		switch {
		case limit != nil && !matched && isFilterLimit(limit):
			problems = append(problems, fmt.Sprintf("input descriptor %q: matching the filter of %s exceeded the verifier's work limit (%v)", d.ID, f.Path[0], limit))
		case limit != nil && !matched:
			problems = append(problems, fmt.Sprintf("input descriptor %q: evaluating %s exceeded the verifier's work limit (%v)", d.ID, f.Path[0], limit))
		case !found && positional != "":
			problems = append(problems, fmt.Sprintf("input descriptor %q: %s reads a position in an array, whose order the credential's proof does not sign (a JSON-LD array is a set); select by value, e.g. with a filter", d.ID, textcut.Prefix(positional, 80)))
		case !found:
			problems = append(problems, fmt.Sprintf("input descriptor %q: the credential has no %s", d.ID, f.Path[0]))
		case !matched:
			problems = append(problems, fmt.Sprintf("input descriptor %q: %s does not match the filter", d.ID, f.Path[0]))
		}
	}
	return problems
}

func isFilterLimit(err error) bool {
	return errors.Is(err, pefilter.ErrWork) || errors.Is(err, pefilter.ErrDeadline)
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
