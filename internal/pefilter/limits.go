package pefilter

import (
	"encoding/json"
	"fmt"
	"regexp/syntax"
	"strconv"
)

// Limits of one filter, checked before it is compiled (Measure). The
// compiler costs a few KiB of memory per value of a filter, and keeps a
// string per schema location (a JSON pointer, as long as the keys above
// it): a filter of a few KiB with long keys, deep, or with many small
// values would cost hundreds of MB, and a pattern with counted repetition
// ("a{1000}") compiles to a program as large as the count. Within the
// limits a filter costs at most about 5 MB to compile, and one past them
// is refused for a few times its size (TestCompileCostIsBounded). DIF's
// example filters are under 400 bytes, 6 levels deep, with keys of at
// most 20 bytes and at most 68 values in all of a definition's filters:
// the limits are 10 to 40 times that.
const (
	MaxBytes    = 16 << 10 // the filter as JSON, written compactly (escapes aside)
	MaxDepth    = 32       // levels of nesting, the filter itself the first
	MaxKeyBytes = 256      // one key
	// MaxValues counts the JSON values: the filter, and every member and
	// element in it at any depth.
	MaxValues = 1024
	// MaxPathBytes is the JSON pointers of all the values, added up: each
	// key counts once for every value at or under it.
	MaxPathBytes = 64 << 10
	// MaxPatternSize is the size of the filter's regular expressions
	// (pattern and patternProperties keys) with their counted repetitions
	// written out: x{n} counts n times x.
	MaxPatternSize = 4096
)

// Size is what a filter weighs as the limits count it. A caller that
// compiles many filters (one presentation definition's) can hold their
// sum to the same limits.
type Size struct {
	Bytes       int
	Values      int
	PathBytes   int
	PatternSize int
}

// Add adds s2 to s.
func (s *Size) Add(s2 Size) {
	s.Bytes += s2.Bytes
	s.Values += s2.Values
	s.PathBytes += s2.PathBytes
	s.PatternSize += s2.PatternSize
}

// Over tells the limit shared by a filter and a sum of filters (values,
// paths, patterns) that s goes past, "" for none: "at most 1024 JSON
// values (…)", to follow "must have" or the like.
func (s Size) Over() string {
	switch {
	case s.Values > MaxValues:
		return fmt.Sprintf("at most %d JSON values (each filter and every value inside it)", MaxValues)
	case s.PathBytes > MaxPathBytes:
		return fmt.Sprintf("at most %d bytes of paths (the JSON pointers of all the values inside, added up: keep long keys few and near the top)", MaxPathBytes)
	case s.PatternSize > MaxPatternSize:
		return fmt.Sprintf("at most %d characters of regular expressions, counted repetitions written out (x{n} counts x n times)", MaxPatternSize)
	}
	return ""
}

// LimitError is a filter past one of the limits, as a whole. Message
// reads after the filter's path ("nested deeper than 32 levels").
type LimitError struct {
	Message string
}

func (e *LimitError) Error() string { return "filter: " + e.Message }

// Measure checks a filter (a decoded JSON value, as Compile takes) against
// the limits and tells its size; the error is a *LimitError. It walks the
// filter once, not below MaxDepth, and allocates nothing but the error
// and what parsing its patterns takes. The limit reported is the same
// however Go orders the filter's maps: the first of depth, key length,
// bytes, values, paths, patterns and numbers (MaxNumberDigits,
// MaxNumberExponent: the library reads them as exact fractions) that the
// whole filter goes past.
func Measure(filter any) (Size, error) {
	var m measurer
	m.value(filter, 1, 0)
	switch {
	case m.deep:
		return m.size, &LimitError{Message: fmt.Sprintf("nested deeper than %d levels", MaxDepth)}
	case m.longestKey > MaxKeyBytes:
		return m.size, &LimitError{Message: fmt.Sprintf("has a key of %d bytes: a filter's keys must be at most %d bytes", m.longestKey, MaxKeyBytes)}
	case m.size.Bytes > MaxBytes:
		return m.size, &LimitError{Message: fmt.Sprintf("must be at most %d bytes of JSON", MaxBytes)}
	case m.size.Over() != "":
		return m.size, &LimitError{Message: "must have " + m.size.Over()}
	case m.bigNumber:
		return m.size, &LimitError{Message: fmt.Sprintf("has a number past what a filter compares: at most %d digits, and an exponent of at most %d either way",
			MaxNumberDigits, MaxNumberExponent)}
	}
	return m.size, nil
}

type measurer struct {
	size       Size
	deep       bool
	longestKey int
	bigNumber  bool // a number past the bounds (numbers.go)
}

// value measures v, at depth levels (1 for the filter) and whose JSON
// pointer is ptrLen bytes long.
func (m *measurer) value(v any, depth, ptrLen int) {
	m.size.Values++
	m.size.PathBytes += ptrLen
	if depth > MaxDepth {
		m.deep = true
		return
	}
	switch t := v.(type) {
	case map[string]any:
		m.size.Bytes += 2 + max(len(t)-1, 0)
		for k, e := range t {
			m.longestKey = max(m.longestKey, len(k))
			m.size.Bytes += len(k) + 3
			switch k {
			case "pattern":
				if p, ok := e.(string); ok {
					m.pattern(p)
				}
			case "patternProperties":
				if pp, ok := e.(map[string]any); ok {
					for p := range pp {
						m.pattern(p)
					}
				}
			}
			m.value(e, depth+1, ptrLen+tokenLen(k))
		}
	case []any:
		m.size.Bytes += 2 + max(len(t)-1, 0)
		for i, e := range t {
			m.value(e, depth+1, ptrLen+1+digits(i))
		}
	case string:
		m.size.Bytes += len(t) + 2
	case json.Number:
		m.size.Bytes += len(t)
		m.bigNumber = m.bigNumber || !NumberWithinBounds(string(t))
	case float64:
		var buf [32]byte
		m.size.Bytes += len(strconv.AppendFloat(buf[:0], t, 'g', -1, 64))
	case bool:
		m.size.Bytes += 5
		if t {
			m.size.Bytes--
		}
	default:
		m.size.Bytes += 4 // null, or a Go value the compiler will refuse
	}
}

// pattern adds regular expression p, unless the patterns are already past
// their limit (parsing more would change nothing but the cost).
func (m *measurer) pattern(p string) {
	if m.size.PatternSize <= MaxPatternSize {
		m.size.PatternSize += patternSize(p)
	}
}

// tokenLen is the length of "/" and k as a JSON pointer token.
func tokenLen(k string) int {
	n := 1 + len(k)
	for i := 0; i < len(k); i++ {
		if k[i] == '~' || k[i] == '/' {
			n++
		}
	}
	return n
}

func digits(i int) int {
	n := 1
	for ; i >= 10; i /= 10 {
		n++
	}
	return n
}

// patternSize is the size of regular expression p with its counted
// repetitions written out, about the instructions it compiles to (at
// most MaxPatternSize+1). A pattern that does not parse counts its
// length: the compiler refuses it.
func patternSize(p string) int {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return len(p)
	}
	return regexpSize(re)
}

func regexpSize(re *syntax.Regexp) int {
	const limit = MaxPatternSize + 1
	n := 0
	switch re.Op {
	case syntax.OpLiteral:
		n = len(re.Rune)
	case syntax.OpRepeat:
		count := re.Max
		if count < 0 {
			count = re.Min + 1
		}
		n = 1 + count*regexpSize(re.Sub[0])
	default:
		n = 1
		for _, sub := range re.Sub {
			n += regexpSize(sub)
			if n >= limit {
				break
			}
		}
	}
	return min(n, limit)
}
