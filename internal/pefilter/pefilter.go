// Package pefilter compiles the filters of DIF Presentation Exchange
// (constraints.fields[].filter): JSON Schema (draft-07 unless the filter
// names another draft), no references outside the filter, and the date
// bounds that the DIF examples use.
//
// Date bounds. JSON Schema's minimum and maximum take numbers only, yet the
// DIF PE v1 examples bound dates with strings beside a date format:
//
//	{"type": "string", "format": "date", "maximum": "1999-05-16"}
//
// DIF v1 means a comparison of dates there, and so does this package. PE v2
// spells the same thing with the ajv-formats keywords formatMinimum,
// formatMaximum, formatExclusiveMinimum and formatExclusiveMaximum, which
// are accepted too. A bound must be a valid value of the format (date:
// RFC 3339 full-date, date-time: RFC 3339 date-time); a value is within
// the bounds when it is a valid value of the format and compares as a
// date (or instant) within them. Values that are not strings are left to
// the other keywords (type). Both proofgate's create-time validation and
// the local verifier's filter check compile filters here, so a filter
// accepted at create time is evaluated with the same meaning.
//
// Bounded work. A filter is written by a verifier and matched against a
// prover's data, so both are held to bounds: a filter to its limits
// (Measure) and refers to no schema (RefError), a match to a Meter
// (work.go), and a prover's numbers to CheckNumbers.
package pefilter

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// resourceURL names a filter while it is compiled; nothing is fetched.
const resourceURL = "urn:proofgate:filter"

// Filter is a compiled filter. Its matches take turns: the one under way
// charges its Meter for the patterns it runs.
type Filter struct {
	schema *jsonschema.Schema
	// weight is the filter's JSON values (Measure): what one schema
	// evaluation may cost at most, in units of work (work.go).
	weight int64

	mu    sync.Mutex
	meter *Meter // of the match under way
}

// Validate reports why v does not satisfy the filter, or nil. It does not
// limit its work: for values that are not a prover's.
func (f *Filter) Validate(v any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.schema.Validate(v)
}

// Match tells whether v satisfies the filter. It does not limit its work:
// for values that are not a prover's (MatchWithin).
func (f *Filter) Match(v any) bool {
	ok, _ := f.MatchWithin(v, nil)
	return ok
}

// MatchWithin tells whether v satisfies the filter, spending m's work (no
// limit when m is nil). The error is m's (ErrWork, ErrDeadline) when the
// match would go past its work or has run past its deadline, or did
// before: the match is then not made, or is cut short, and tells nothing.
// v's numbers should be within the bounds (CheckNumbers).
func (f *Filter) MatchWithin(v any, m *Meter) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if m != nil {
		if m.err != nil {
			return false, m.err
		}
		if !m.spend(f.weight * valueWeight(v, m.left/f.weight)) {
			return false, m.err
		}
	}
	f.meter = m
	defer func() { f.meter = nil }()
	ok := f.schema.Validate(v) == nil
	if err := m.Err(); err != nil {
		return false, err // a pattern was refused: ok may be anything
	}
	return ok, nil
}

// BoundError is a date bound that cannot be used: not a string, not a
// value of its format, or on a schema without a date format. Pointer is
// the JSON pointer of the keyword inside the filter ("/minimum").
type BoundError struct {
	Pointer string
	Message string
}

func (e *BoundError) Error() string { return e.Pointer + ": " + e.Message }

// Compile compiles filter, a decoded JSON value (numbers as json.Number or
// float64). Errors are a *LimitError for a filter past the limits (it is
// not compiled), a *BoundError, or the compiler's own
// (*jsonschema.SchemaValidationError for a filter its metaschema refuses,
// *jsonschema.InvalidRegexError, *jsonschema.LoadURLError for a reference
// outside the filter), or a *RefError for a reference inside it, so that
// callers can say where the problem is.
func Compile(filter any) (*Filter, error) {
	size, err := Measure(filter)
	if err != nil {
		return nil, err
	}
	f := &Filter{weight: int64(max(size.Values, 1))}
	var ptr pointer
	doc, err := rewrite(filter, &ptr)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.UseLoader(noLoader{})
	c.AssertVocabs()
	c.RegisterVocabulary(boundsVocabulary())
	c.UseRegexpEngine(f.compileRegexp)
	if err := c.AddResource(resourceURL, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(resourceURL)
	if err != nil {
		return nil, err
	}
	if err := refusedRef(s, map[*jsonschema.Schema]bool{}); err != nil {
		return nil, err
	}
	f.schema = s
	return f, nil
}

// CompileJSON compiles a filter given as JSON.
func CompileJSON(raw []byte) (*Filter, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		return nil, err
	}
	return Compile(doc)
}

// ErrLoadDisabled is what the loader answers for every reference outside
// a filter.
var ErrLoadDisabled = errors.New("loading schemas is disabled")

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: %w", url, ErrLoadDisabled)
}

// Keywords of the date bounds: the v2 (ajv-formats) names, and the v1
// names they are written with.
var boundKeywords = []struct{ v1, v2 string }{
	{"minimum", "formatMinimum"},
	{"maximum", "formatMaximum"},
	{"exclusiveMinimum", "formatExclusiveMinimum"},
	{"exclusiveMaximum", "formatExclusiveMaximum"},
}

// rewrite copies the schema value v (at the JSON pointer ptr holds),
// turning every v1 date bound (a string minimum… beside format date or
// date-time) into its v2 keyword and checking every bound's value. The
// pointer is a stack of tokens, formatted only for an error: formatting it
// at every value would cost the depth times the keys' length each.
func rewrite(v any, ptr *pointer) (any, error) {
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			ptr.pushIndex(i)
			var err error
			out[i], err = rewrite(e, ptr)
			ptr.pop()
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			ptr.push(k)
			var err error
			out[k], err = rewrite(e, ptr)
			ptr.pop()
			if err != nil {
				return nil, err
			}
		}
		format, _ := t["format"].(string)
		dated := format == "date" || format == "date-time"
		for _, kw := range boundKeywords {
			if s, ok := t[kw.v1].(string); ok && dated {
				if _, dup := t[kw.v2]; dup {
					return nil, &BoundError{Pointer: ptr.with(kw.v1), Message: "given twice, as " + kw.v1 + " and " + kw.v2}
				}
				if _, ok := parseBound(format, s); !ok {
					return nil, &BoundError{Pointer: ptr.with(kw.v1), Message: fmt.Sprintf("%q is not a %s (%s)", s, format, formatHint(format))}
				}
				delete(out, kw.v1)
				out[kw.v2] = s
			}
			if b, ok := t[kw.v2]; ok {
				s, isString := b.(string)
				switch {
				case !dated:
					return nil, &BoundError{Pointer: ptr.with(kw.v2), Message: `needs "format": "date" or "date-time" beside it`}
				case !isString:
					return nil, &BoundError{Pointer: ptr.with(kw.v2), Message: "must be a " + format + " string"}
				}
				if _, ok := parseBound(format, s); !ok {
					return nil, &BoundError{Pointer: ptr.with(kw.v2), Message: fmt.Sprintf("%q is not a %s (%s)", s, format, formatHint(format))}
				}
			}
		}
		return out, nil
	default:
		return v, nil
	}
}
