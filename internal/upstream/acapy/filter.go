package acapy

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// ACA-Py 1.4 keeps of a DIF filter only what its FilterSchema declares
// (protocols/present_proof/dif/pres_exch.py, unknown=EXCLUDE: the rest is
// dropped without a word), and DIFPresExchHandler.validate_patch
// (pres_exch_handler.py) evaluates it, on the holder's side and on the
// verifier's, like this:
//
//   - "not" takes an object, whose members replace the filter's (what is
//     beside "not" is dropped); true or false make the agent fail (500),
//     a "not" inside it is refused (422);
//   - without type, only const or enum is checked, and nothing matches a
//     filter with neither;
//   - a type other than "string" or "number" matches nothing; a type list
//     is refused (422);
//   - beside a type, one check only: the first of an if/elif chain
//     (string: minLength/maxLength, pattern, enum, the bounds, const;
//     number: the bounds, const, enum), the others ignored; a check whose
//     value is 0, "", false or [] is skipped as Python reads it false;
//   - strings are bounded only as dates, beside format "date" or
//     "date-time" (parsed with dateutil, inclusive minimum/maximum,
//     exclusive exclusiveMinimum/exclusiveMaximum); any other format is
//     not checked.
//
// So that a constraint proofgate accepted is never one the agent passes
// unchecked, acapyFilter refuses (400 naming the keyword) every filter of
// which ACA-Py would drop or skip a keyword, or that it cannot compare or
// refuses, and sends the v2 date bounds (formatMinimum…) under the v1
// names ACA-Py compares as dates. What it still reads more loosely than
// the local verifier (pefilter), and is not refused, the value's own bound
// being checked: beside a check, the type of the value is not (a numeric
// string meets a number bound, str() of a number a pattern); dates are
// parsed as dateutil does ("2000" is a date), and the offset of a
// date-time value is replaced with UTC (so bounds are sent in UTC);
// patterns are Python's (\d takes any Unicode digit).

// filterAnnotations constrain nothing: ACA-Py dropping them changes no
// answer.
var filterAnnotations = map[string]bool{
	"title": true, "description": true, "$comment": true, "examples": true,
	"default": true, "$schema": true, "$id": true,
}

// filterBounds maps each bound keyword to the name ACA-Py compares it
// under: the PE v2 date bounds (ajv-formats) to the v1 names it reads as
// dates beside a date format.
var filterBounds = map[string]string{
	"minimum": "minimum", "maximum": "maximum",
	"exclusiveMinimum": "exclusiveMinimum", "exclusiveMaximum": "exclusiveMaximum",
	"formatMinimum": "minimum", "formatMaximum": "maximum",
	"formatExclusiveMinimum": "exclusiveMinimum", "formatExclusiveMaximum": "exclusiveMaximum",
}

// filterChecks are the other checks ACA-Py keeps.
var filterChecks = map[string]bool{"minLength": true, "maxLength": true, "pattern": true, "enum": true, "const": true}

const keptKeywords = "type, format, pattern, minLength, maxLength, minimum, maximum, exclusiveMinimum, exclusiveMaximum " +
	"(formatMinimum… for dates), const, enum and not"

// ownField is the hint for a constraint ACA-Py would ignore beside
// another: fields are all checked, so each can have its own.
const ownField = "; put it in a field of its own with the same path"

// acapyFilters checks and adapts the filter of every
// constraints.fields[] of a decoded definition, naming what ACA-Py cannot
// take of each filter (the first problem of each, every filter) as req's
// caller wrote the definition.
func acapyFilters(def map[string]any, req *backend.OOBRequest) error {
	var refused []backend.UnsupportedError
	ids, _ := def["input_descriptors"].([]any)
	for i, d := range ids {
		desc, _ := d.(map[string]any)
		cons, _ := desc["constraints"].(map[string]any)
		fields, _ := cons["fields"].([]any)
		for j, f := range fields {
			field, _ := f.(map[string]any)
			filter, ok := field["filter"]
			if !ok {
				continue
			}
			at := req.DescriptorField(i, fmt.Sprintf("constraints.fields[%d].filter", j))
			var u *backend.UnsupportedError
			if err := acapyFilter(filter, at); errors.As(err, &u) {
				refused = append(refused, *u)
			} else if err != nil {
				return err
			} else if sibling := typeSibling(field); sibling != nil {
				fields = append(fields, sibling)
			}
		}
		if cons != nil {
			cons["fields"] = fields
		}
	}
	if u := backend.Unsupported(refused); u != nil {
		return u
	}
	return nil
}

// typeSibling is a field of the same path whose filter is field's type
// (and format) alone, for a filter that has a check beside its type:
// ACA-Py then checks only that check, never the value's JSON type ("25"
// met {"type":"number","minimum":18}), but it checks the type of a filter
// that has nothing else (check_filter_only_type_enforced). Every field
// must be met, so the pair asks what the one filter asked. None for a
// negated filter (its type is negated too), a field with a predicate
// (ACA-Py answers those with a boolean), or a filter of its type alone.
func typeSibling(field map[string]any) map[string]any {
	m, _ := field["filter"].(map[string]any)
	typ, ok := m["type"].(string)
	if !ok || m["not"] != nil || field["predicate"] != nil {
		return nil
	}
	checked := false
	for k := range m {
		_, bound := filterBounds[k]
		checked = checked || bound || filterChecks[k]
	}
	if !checked {
		return nil
	}
	filter := map[string]any{"type": typ}
	if f, ok := m["format"]; ok {
		filter["format"] = f
	}
	sibling := map[string]any{"path": field["path"], "filter": filter}
	if o, ok := field["optional"]; ok {
		sibling["optional"] = o
	}
	return sibling
}

// acapyFilter checks the filter f at path at, adapting it in place.
func acapyFilter(f any, at string) error {
	m, ok := f.(map[string]any)
	if !ok {
		return unsupported(at, "must be an object for the org's agent (ACA-Py), which fails on anything else")
	}
	inner, negated := m["not"]
	if !negated {
		return plainFilter(m, at)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != "not" && !filterAnnotations[k] {
			return unsupported(backend.Key(at, k), `dropped by the org's agent (ACA-Py) beside "not"`+ownField)
		}
	}
	at = backend.Key(at, "not")
	n, ok := inner.(map[string]any)
	if !ok {
		return unsupported(at, "must be an object for the org's agent (ACA-Py), which fails on true and false")
	}
	if _, ok := n["not"]; ok {
		return unsupported(backend.Key(at, "not"), `refused by the org's agent (ACA-Py) inside "not"`)
	}
	return plainFilter(n, at)
}

// plainFilter checks a filter without "not" (see above for ACA-Py's
// reading of it).
func plainFilter(m map[string]any, at string) error {
	keys := slices.Sorted(maps.Keys(m))
	for _, k := range keys {
		if _, bound := filterBounds[k]; !bound && !filterChecks[k] && !filterAnnotations[k] && k != "type" && k != "format" {
			return unsupported(backend.Key(at, k), "ignored by the org's agent (ACA-Py), which checks only "+keptKeywords)
		}
	}
	typ, hasFormat, err := typeAndFormat(m, at)
	if err != nil {
		return err
	}

	// The checks, each valid for ACA-Py; then one at most.
	var checks []string
	for _, k := range keys {
		if _, bound := filterBounds[k]; bound {
			if err := boundCheck(m, k, typ, hasFormat, at); err != nil {
				return err
			}
		} else if filterChecks[k] {
			if err := valueCheck(m[k], k, typ, backend.Key(at, k)); err != nil {
				return err
			}
		} else {
			continue
		}
		if (k == "minLength" || k == "maxLength") && (slices.Contains(checks, "minLength") || slices.Contains(checks, "maxLength")) {
			continue // one check: the length
		}
		checks = append(checks, k)
	}
	if len(checks) > 1 {
		return unsupported(backend.Key(at, checks[1]),
			fmt.Sprintf("ignored by the org's agent (ACA-Py) beside %s: it checks one of a filter's pattern, length, bounds, const and enum", checks[0])+ownField)
	}
	if hasFormat && len(checks) == 1 {
		if _, bound := filterBounds[checks[0]]; !bound {
			return unsupported(backend.Key(at, "format"),
				fmt.Sprintf("ignored by the org's agent (ACA-Py) beside %s: it checks a format alone or with a date bound", checks[0])+ownField)
		}
	}
	if typ == "" && len(checks) == 0 {
		return unsupported(at, `matches no value at the org's agent (ACA-Py), which needs a type, const or enum in a filter; add one or leave the filter out`)
	}
	adapt(m)
	return nil
}

// typeAndFormat checks the type and format of the filter m: one type
// ACA-Py compares, a format only beside "string", and one it checks.
func typeAndFormat(m map[string]any, at string) (typ string, hasFormat bool, err error) {
	if t, ok := m["type"]; ok {
		s, _ := t.(string)
		switch s {
		case "string", "number":
			typ = s
		case "":
			return "", false, unsupported(backend.Key(at, "type"), `must be one type, "string" or "number", for the org's agent (ACA-Py)`)
		default:
			return "", false, unsupported(backend.Key(at, "type"), fmt.Sprintf(`the org's agent (ACA-Py) matches no value of type %q: it compares only "string" and "number"`, s))
		}
	}
	f, ok := m["format"]
	if !ok {
		return typ, false, nil
	}
	switch {
	case typ != "string":
		return "", false, unsupported(backend.Key(at, "format"), `checked by the org's agent (ACA-Py) only beside "type": "string"`)
	case f != "date" && f != "date-time":
		return "", false, unsupported(backend.Key(at, "format"), `the org's agent (ACA-Py) checks only the formats "date" and "date-time"`)
	}
	return typ, true, nil
}

// boundCheck checks the bound k of m: a number beside type number, a date
// beside type string and a date format, never 0.
func boundCheck(m map[string]any, k, typ string, hasFormat bool, at string) error {
	p := backend.Key(at, k)
	switch v := m[k]; typ {
	case "number":
		n, ok := v.(json.Number)
		if !ok {
			return unsupported(p, `must be a number beside "type": "number" for the org's agent (ACA-Py)`)
		}
		if f, _ := strconv.ParseFloat(string(n), 64); f == 0 {
			return unsupported(p, "ignored by the org's agent (ACA-Py) when 0; bound by another value")
		}
	case "string":
		s, ok := v.(string)
		switch {
		case !hasFormat:
			return unsupported(p, `compared by the org's agent (ACA-Py) only as a date: needs "format": "date" or "date-time" beside it`)
		case !ok || s == "":
			return unsupported(p, `must be a date string beside "format" for the org's agent (ACA-Py)`)
		}
	default:
		return unsupported(p, `compared by the org's agent (ACA-Py) only beside "type": "number", or "type": "string" and a date format`)
	}
	if other := filterBounds[k]; other != k {
		if _, dup := m[other]; dup {
			return unsupported(p, "given twice, as "+other+" and "+k+", for the org's agent (ACA-Py), which takes one")
		}
	}
	return nil
}

// valueCheck checks the value v of one of filterChecks at p.
func valueCheck(v any, k, typ, p string) error {
	switch k {
	case "minLength", "maxLength", "pattern":
		if typ != "string" {
			return unsupported(p, `checked by the org's agent (ACA-Py) only beside "type": "string"`)
		}
		if k == "pattern" {
			if s, _ := v.(string); s == "" {
				return unsupported(p, `ignored by the org's agent (ACA-Py) when ""; leave it out`)
			}
			return nil
		}
		n, ok := v.(json.Number)
		if f, err := n.Float64(); !ok || err != nil || f < 0 || f != float64(int64(f)) {
			return unsupported(p, "must be a whole number for the org's agent (ACA-Py)")
		}
		if falsy(n) {
			if k == "minLength" {
				return unsupported(p, "ignored by the org's agent (ACA-Py) when 0; leave it out (it constrains nothing)")
			}
			return unsupported(p, `ignored by the org's agent (ACA-Py) when 0; use "const": "" instead`)
		}
	case "enum":
		list, _ := v.([]any)
		if len(list) == 0 {
			return unsupported(p, "must list values for the org's agent (ACA-Py)")
		}
		for i, e := range list {
			if !comparable(e) {
				return unsupported(fmt.Sprintf("%s[%d]", p, i), "the org's agent (ACA-Py) compares only with strings, numbers and booleans")
			}
		}
	case "const":
		if !comparable(v) {
			return unsupported(p, "the org's agent (ACA-Py) compares only with strings, numbers and booleans")
		}
	}
	return nil
}

// comparable tells whether ACA-Py takes v as a const or enum value
// (StrOrNumberField; Python's bool is an int).
func comparable(v any) bool {
	switch v.(type) {
	case string, json.Number, bool:
		return true
	}
	return false
}

// adapt rewrites a checked filter as ACA-Py reads it with its meaning:
// the v2 date bounds under their v1 names, a date-time bound in UTC
// (ACA-Py replaces the offset of what it compares with UTC instead of
// converting), and a const Python reads false (0, "", false), which
// ACA-Py would skip, as the one-value enum it checks.
func adapt(m map[string]any) {
	for k, v1 := range filterBounds {
		b, ok := m[k]
		if !ok {
			continue
		}
		if s, ok := b.(string); ok && m["format"] == "date-time" {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				b = t.UTC().Format(time.RFC3339Nano)
			}
		}
		delete(m, k)
		m[v1] = b
	}
	if c, ok := m["const"]; ok && falsy(c) {
		delete(m, "const")
		m["enum"] = []any{c}
	}
}

// falsy tells whether Python reads the JSON value v as false.
func falsy(v any) bool {
	switch v := v.(type) {
	case string:
		return v == ""
	case bool:
		return !v
	case json.Number:
		f, _ := strconv.ParseFloat(string(v), 64)
		return f == 0
	}
	return false
}

func unsupported(field, message string) error {
	return &agent.UnsupportedError{Field: field, Message: message}
}
