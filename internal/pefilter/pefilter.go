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
package pefilter

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp/syntax"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/message"
)

// resourceURL names a filter while it is compiled; nothing is fetched.
const resourceURL = "urn:proofgate:filter"

// Filter is a compiled filter.
type Filter struct {
	schema *jsonschema.Schema
}

// Validate reports why v does not satisfy the filter, or nil.
func (f *Filter) Validate(v any) error { return f.schema.Validate(v) }

// Match tells whether v satisfies the filter.
func (f *Filter) Match(v any) bool { return f.schema.Validate(v) == nil }

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
// outside the filter), so that callers can say where the problem is.
func Compile(filter any) (*Filter, error) {
	if _, err := Measure(filter); err != nil {
		return nil, err
	}
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
	if err := c.AddResource(resourceURL, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(resourceURL)
	if err != nil {
		return nil, err
	}
	return &Filter{schema: s}, nil
}

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
// bytes, values, paths and patterns that the whole filter goes past.
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
	}
	return m.size, nil
}

type measurer struct {
	size       Size
	deep       bool
	longestKey int
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

// pointer is a JSON pointer kept as its tokens (a key, or an index when
// key is unset), formatted only when asked.
type pointer struct {
	toks []token
}

type token struct {
	key   string
	index int
	isKey bool
}

func (p *pointer) push(k string)   { p.toks = append(p.toks, token{key: k, isKey: true}) }
func (p *pointer) pushIndex(i int) { p.toks = append(p.toks, token{index: i}) }
func (p *pointer) pop()            { p.toks = p.toks[:len(p.toks)-1] }
func (p *pointer) String() string  { return string(p.appendTo(nil)) }
func (p *pointer) with(k string) string {
	return string(appendToken(p.appendTo(nil), k))
}

func (p *pointer) appendTo(b []byte) []byte {
	for _, t := range p.toks {
		if t.isKey {
			b = appendToken(b, t.key)
		} else {
			b = append(b, '/')
			b = strconv.AppendInt(b, int64(t.index), 10)
		}
	}
	return b
}

// appendToken appends "/" and k escaped as a JSON pointer token.
func appendToken(b []byte, k string) []byte {
	b = append(b, '/')
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '~':
			b = append(b, "~0"...)
		case '/':
			b = append(b, "~1"...)
		default:
			b = append(b, k[i])
		}
	}
	return b
}

func formatHint(format string) string {
	if format == "date" {
		return "YYYY-MM-DD"
	}
	return "RFC 3339, e.g. 2020-04-16T00:00:00Z"
}

// parseBound parses s as a value of format.
func parseBound(format, s string) (time.Time, bool) {
	layout := time.RFC3339Nano
	if format == "date" {
		layout = time.DateOnly
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// The bounds vocabulary: the four format* keywords, compiled where a
// schema has any.
const boundsVocabURL = "urn:proofgate:vocab:format-bounds"

func boundsVocabulary() *jsonschema.Vocabulary {
	return &jsonschema.Vocabulary{URL: boundsVocabURL, Compile: compileBounds}
}

type bounds struct {
	format                 string
	min, max               *time.Time
	exclusiveMin, exclMax  bool
	minKeyword, maxKeyword string
}

func compileBounds(_ *jsonschema.CompilerContext, obj map[string]any) (jsonschema.SchemaExt, error) {
	format, _ := obj["format"].(string)
	b := &bounds{format: format}
	found := false
	for _, kw := range boundKeywords {
		s, ok := obj[kw.v2].(string)
		if !ok {
			continue
		}
		t, ok := parseBound(format, s) // checked by rewrite
		if !ok {
			return nil, fmt.Errorf("%s: %q is not a %s", kw.v2, s, format)
		}
		found = true
		switch kw.v2 {
		case "formatMinimum", "formatExclusiveMinimum":
			if b.min == nil || t.After(*b.min) || (t.Equal(*b.min) && kw.v2 == "formatExclusiveMinimum") {
				b.min, b.exclusiveMin, b.minKeyword = &t, kw.v2 == "formatExclusiveMinimum", kw.v2
			}
		default:
			if b.max == nil || t.Before(*b.max) || (t.Equal(*b.max) && kw.v2 == "formatExclusiveMaximum") {
				b.max, b.exclMax, b.maxKeyword = &t, kw.v2 == "formatExclusiveMaximum", kw.v2
			}
		}
	}
	if !found {
		return nil, nil
	}
	return b, nil
}

// Validate implements jsonschema.SchemaExt.
func (b *bounds) Validate(ctx *jsonschema.ValidatorContext, v any) {
	s, ok := v.(string)
	if !ok {
		return
	}
	t, ok := parseBound(b.format, s)
	if !ok {
		ctx.AddError(&boundKind{keyword: "format", msg: fmt.Sprintf("%q is not a %s", s, b.format)})
		return
	}
	if b.min != nil && (t.Before(*b.min) || (b.exclusiveMin && t.Equal(*b.min))) {
		ctx.AddError(&boundKind{keyword: b.minKeyword, msg: fmt.Sprintf("%s is before the %s bound %s", s, b.format, b.show(*b.min))})
	}
	if b.max != nil && (t.After(*b.max) || (b.exclMax && t.Equal(*b.max))) {
		ctx.AddError(&boundKind{keyword: b.maxKeyword, msg: fmt.Sprintf("%s is after the %s bound %s", s, b.format, b.show(*b.max))})
	}
}

func (b *bounds) show(t time.Time) string {
	if b.format == "date" {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339Nano)
}

// boundKind is the jsonschema.ErrorKind of a failed bound.
type boundKind struct {
	keyword, msg string
}

func (k *boundKind) KeywordPath() []string { return []string{k.keyword} }

func (k *boundKind) LocalizedString(*message.Printer) string { return k.msg }
