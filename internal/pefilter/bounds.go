package pefilter

import (
	"fmt"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/message"
)

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
