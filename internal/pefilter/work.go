package pefilter

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The work of matching. A filter is written by a verifier, the values it
// is matched against by a prover, and the JSON Schema library evaluates
// with no limit of its own: no context, no deadline, no count. Matching
// is bounded here instead, by a Meter the caller holds for all the
// matches of one presentation.
//
// A filter has no references (Compile refuses $ref), so each of its
// schemas is evaluated at most once on each value of what it is matched
// against, and the values one schema meets are disjoint subtrees (a
// schema sits at one depth below the filter, and meets the values at one
// depth below the matched value). Every keyword but pattern costs at most
// its own size (enum, const, required…) or the size of the value it meets
// (uniqueItems, minLength, formats…). Filter.weight (the filter's JSON
// values) times valueWeight(v) is therefore a bound on the work of one
// match, up to a constant, and is charged before the match starts: a
// match that would go past what is left of the meter is not started. A
// pattern's cost is the string's length times the size of its program
// (Go's regexp is linear in both, with no backtracking): it is charged
// when the library asks for the match, since which strings meet a pattern
// depends on the value.

// Errors of a match refused or cut short by its Meter.
var (
	ErrWork     = errors.New("pefilter: matching exceeded its work limit")
	ErrDeadline = errors.New("pefilter: matching ran past its deadline")
)

// stringBytesPerUnit is how many bytes of a string (or key) count as one
// unit of work: a keyword that reads a whole string (minLength counts its
// runes, a format parses it) costs about a schema evaluation per 16 bytes.
const stringBytesPerUnit = 16

// depthPerUnit is how many levels of depth add a unit to a value's
// weight.
const depthPerUnit = 8

// regexpWorkPerUnit is how many steps of a regexp program (one byte of
// input through one instruction) make one unit of work: about the time of
// a schema evaluation.
const regexpWorkPerUnit = 16

// Meter is the work that matches may do together: units, about a schema
// evaluation each (a few hundred nanoseconds to a microsecond), until a
// deadline. It is not safe for concurrent use: one presentation, one
// goroutine. A nil Meter does not limit.
type Meter struct {
	left     int64
	deadline time.Time
	err      error
}

// NewMeter returns a meter of work units, until deadline (none when
// zero).
func NewMeter(work int64, deadline time.Time) *Meter {
	return &Meter{left: work, deadline: deadline}
}

// Err tells why the meter stopped matching (ErrWork, ErrDeadline), or nil.
func (m *Meter) Err() error {
	if m == nil {
		return nil
	}
	return m.err
}

// Remaining is the work left.
func (m *Meter) Remaining() int64 { return m.left }

// spend takes n units, or stops the meter when it has not that many or
// its deadline has passed. The clock is read on every call: a call pays
// for a whole match or regexp match, far more than reading the clock.
func (m *Meter) spend(n int64) bool {
	if m == nil {
		return true
	}
	if m.err != nil {
		return false
	}
	if !m.deadline.IsZero() && time.Now().After(m.deadline) {
		m.left, m.err = 0, ErrDeadline
		return false
	}
	if n > m.left {
		m.left, m.err = 0, ErrWork
		return false
	}
	m.left -= n
	return true
}

// valueWeight is the size of v in units of work: for each value and each
// key, one, and one more per depthPerUnit levels below v (the library
// copies a value's location, one string per level, into every error it
// makes there), and one per stringBytesPerUnit bytes of its strings and
// keys. It stops counting past limit (and then answers more than limit):
// the walk costs what it counts, so it is never longer than the work it
// would allow.
func valueWeight(v any, limit int64) int64 {
	var n int64
	var walk func(v any, depth int64)
	walk = func(v any, depth int64) {
		if n > limit {
			return
		}
		level := 1 + depth/depthPerUnit
		n += level
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				n += level + int64(len(k))/stringBytesPerUnit
				walk(e, depth+1)
				if n > limit {
					return
				}
			}
		case []any:
			for _, e := range t {
				walk(e, depth+1)
				if n > limit {
					return
				}
			}
		case string:
			n += int64(len(t)) / stringBytesPerUnit
		}
	}
	walk(v, 0)
	return n
}

// meteredRegexp is a filter's compiled pattern (or patternProperties
// key), charging each match to the Meter of the match under way.
type meteredRegexp struct {
	re *regexp.Regexp
	// insts is the size of its program: Go's regexp steps through at
	// most that many instructions per byte of input.
	insts int64
	f     *Filter
}

func (r *meteredRegexp) MatchString(s string) bool {
	if !r.f.meter.spend(1 + int64(len(s))*r.insts/regexpWorkPerUnit) {
		return false // Filter.MatchWithin reports the meter's error
	}
	return r.re.MatchString(s)
}

func (r *meteredRegexp) String() string { return r.re.String() }

// compileRegexp is the filter's regexp engine: Go's regexp (RE2: linear
// time, no backrefs or lookaround), metered. It also compiles the values
// of a "format": "regex" schema, which are the prover's: one whose
// program would be larger than a filter's own patterns may be
// (MaxPatternSize) is not taken for a regex.
func (f *Filter) compileRegexp(s string) (jsonschema.Regexp, error) {
	if !f.meter.spend(1 + int64(len(s))/stringBytesPerUnit) {
		return nil, f.meter.Err()
	}
	if len(s) > MaxPatternSize*4 || patternSize(s) > MaxPatternSize {
		return nil, errors.New("larger than the regular expressions a filter may use")
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, err
	}
	parsed, err := syntax.Parse(s, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, err
	}
	return &meteredRegexp{re: re, insts: int64(len(prog.Inst)), f: f}, nil
}
