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
	"errors"
	"fmt"
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
// float64). Errors are a *BoundError, or the compiler's own
// (*jsonschema.SchemaValidationError for a filter its metaschema refuses,
// *jsonschema.InvalidRegexError, *jsonschema.LoadURLError for a reference
// outside the filter), so that callers can say where the problem is.
func Compile(filter any) (*Filter, error) {
	doc, err := rewrite(filter, "")
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

// rewrite copies the schema value v (at JSON pointer ptr), turning every
// v1 date bound (a string minimum… beside format date or date-time) into
// its v2 keyword and checking every bound's value.
func rewrite(v any, ptr string) (any, error) {
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			var err error
			if out[i], err = rewrite(e, fmt.Sprintf("%s/%d", ptr, i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			var err error
			if out[k], err = rewrite(e, ptr+"/"+escape(k)); err != nil {
				return nil, err
			}
		}
		format, _ := t["format"].(string)
		dated := format == "date" || format == "date-time"
		for _, kw := range boundKeywords {
			if s, ok := t[kw.v1].(string); ok && dated {
				if _, dup := t[kw.v2]; dup {
					return nil, &BoundError{Pointer: ptr + "/" + kw.v1, Message: "given twice, as " + kw.v1 + " and " + kw.v2}
				}
				if _, ok := parseBound(format, s); !ok {
					return nil, &BoundError{Pointer: ptr + "/" + kw.v1, Message: fmt.Sprintf("%q is not a %s (%s)", s, format, formatHint(format))}
				}
				delete(out, kw.v1)
				out[kw.v2] = s
			}
			if b, ok := t[kw.v2]; ok {
				s, isString := b.(string)
				switch {
				case !dated:
					return nil, &BoundError{Pointer: ptr + "/" + kw.v2, Message: `needs "format": "date" or "date-time" beside it`}
				case !isString:
					return nil, &BoundError{Pointer: ptr + "/" + kw.v2, Message: "must be a " + format + " string"}
				}
				if _, ok := parseBound(format, s); !ok {
					return nil, &BoundError{Pointer: ptr + "/" + kw.v2, Message: fmt.Sprintf("%q is not a %s (%s)", s, format, formatHint(format))}
				}
			}
		}
		return out, nil
	default:
		return v, nil
	}
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
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
