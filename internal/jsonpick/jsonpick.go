// Package jsonpick reads the few members proofgate uses from a JSON
// document (an agent's answer) in one pass: the whole document is checked exactly as
// encoding/json checks it before decoding (json.Valid), and the raw values
// of the named members are handed back to be decoded by the caller.
//
// encoding/json scans a document twice (checkValid, then the decode), copies
// every json.RawMessage and walks strings byte by byte; the agents' answers
// are mostly long strings (an invitation URL is the base64 of the
// invitation) and members proofgate never reads. Here the document is
// checked by internal/jsonscan, which skips strings eight bytes at a time,
// and unused members are only checked, not decoded.
//
// The fast path is exact only for the plain case. Where encoding/json
// would do something subtler — a key that matches a name only once
// unescaped or case-folded, a name given twice (for a map, encoding/json
// merges both) — the object is reported Odd, and the caller decodes it
// with encoding/json instead, so that its answer never differs.
//
// internal/validate has the project's other JSON parser; it is not used
// here because it does the opposite job: it builds every value of a
// client's request into a tree, with paths, to name each problem, where
// this builds nothing and keeps the answer's bytes.
package jsonpick

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/proofgate/proofgate/internal/jsonscan"
)

// MaxDepth is encoding/json's nesting limit: deeper documents are not
// valid JSON to it.
const MaxDepth = jsonscan.MaxDepth

// Errors of Object and Array.
var (
	// ErrSyntax: the document is not exactly one JSON value.
	ErrSyntax = errors.New("not valid JSON")
	// ErrType: a valid document that is not an object (Object) or an
	// array (Array), nor null.
	ErrType = errors.New("JSON of another type")
)

// Object checks that doc is one JSON value and stores in vals[i] the raw
// value of the top-level member named names[i] (nil when absent; vals must
// be as long as names). A null document is accepted with nothing picked,
// as encoding/json decodes null into a struct. odd reports an object the
// fast path cannot answer for exactly (see the package comment): decode it
// with encoding/json. The values point into doc.
func Object(doc []byte, names []string, vals [][]byte) (odd bool, err error) {
	clear(vals)
	s := jsonscan.Scanner{Src: doc}
	s.Space()
	switch {
	case s.Pos < len(doc) && doc[s.Pos] == '{':
		odd, err = pick(&s, 1, names, vals)
		if err == nil {
			err = s.End()
		}
		if err != nil {
			clear(vals)
			return false, ErrSyntax
		}
		return odd, nil
	case s.Pos < len(doc) && doc[s.Pos] == 'n':
		if s.Literal("null") != nil || s.End() != nil {
			return false, ErrSyntax
		}
		return false, nil
	}
	if s.SkipValue(0) != nil || s.End() != nil {
		return false, ErrSyntax
	}
	return false, ErrType
}

// Pick is Object for readers that decode what they pick: where doc is odd
// it decodes doc into fallback with encoding/json instead. picked says the
// values are in vals, for the caller to decode; otherwise ok tells whether
// doc was read (into fallback) at all, as json.Unmarshal would have.
func Pick(doc []byte, names []string, vals [][]byte, fallback any) (picked, ok bool) {
	odd, err := Object(doc, names, vals)
	switch {
	case err != nil:
		return false, false
	case odd:
		return false, json.Unmarshal(doc, fallback) == nil
	}
	return true, true
}

// Array checks that doc is one JSON value, an array or null, and calls
// each for every element that is an object, with the element's raw JSON
// and its members picked as Object picks them (vals is reused between
// calls). Elements that are not objects are skipped. The elements are
// visited as the document is checked, in the same pass: when Array
// returns an error, each may have seen the elements before the fault, and
// what it made of them must be dropped.
func Array(doc []byte, names []string, each func(elem []byte, vals [][]byte, odd bool)) error {
	s := jsonscan.Scanner{Src: doc}
	s.Space()
	switch {
	case s.Pos < len(doc) && doc[s.Pos] == 'n':
		if s.Literal("null") != nil || s.End() != nil {
			return ErrSyntax
		}
		return nil
	case s.Pos >= len(doc) || doc[s.Pos] != '[':
		if s.SkipValue(0) != nil || s.End() != nil {
			return ErrSyntax
		}
		return ErrType
	}
	// vals is handed to each, which may keep it: it is on the heap
	// whatever is done, so it is made no larger than needed.
	vals := make([][]byte, len(names))
	if _, empty := s.Enter(); empty {
		return syntax(s.End())
	}
	for {
		if start := s.Pos; start < len(doc) && doc[start] == '{' {
			clear(vals)
			odd, err := pick(&s, 2, names, vals)
			if err != nil {
				return ErrSyntax
			}
			each(doc[start:s.Pos], vals, odd)
		} else if s.SkipValue(1) != nil {
			return ErrSyntax
		}
		more, err := s.Next(']')
		if err != nil {
			return ErrSyntax
		}
		if !more {
			return syntax(s.End())
		}
	}
}

// syntax is this package's error for an error of jsonscan.
func syntax(err error) error {
	if err != nil {
		return ErrSyntax
	}
	return nil
}

// String decodes a picked value as encoding/json decodes it into a
// string field: absent or null give "", a JSON string its text. ok is
// false for any other JSON value (encoding/json's UnmarshalTypeError,
// which leaves the field empty).
func String(raw []byte) (s string, ok bool) {
	switch {
	case raw == nil || string(raw) == "null":
		return "", true
	case raw[0] != '"':
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if i := jsonscan.PlainRun(body, 0, false); i == len(body) ||
		(body[i] >= utf8.RuneSelf && bytes.IndexByte(body[i:], '\\') < 0 && utf8.Valid(body[i:])) {
		return string(body), true
	}
	// Escapes or invalid UTF-8 (which encoding/json turns into U+FFFD).
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// BoolPtr decodes a picked value as encoding/json decodes it into a *bool
// field: absent or null give nil. ok is false for any other non-boolean.
func BoolPtr(raw []byte) (b *bool, ok bool) {
	switch string(raw) {
	case "", "null":
		return nil, true
	case "true":
		t := true
		return &t, true
	case "false":
		f := false
		return &f, true
	}
	return nil, false
}

// pick checks the object at s.Pos and moves past it, storing in vals the
// raw values of the members named in names. depth is the object's own
// nesting level (1 for a document that is the object), for the limit on
// the values inside.
func pick(s *jsonscan.Scanner, depth int, names []string, vals [][]byte) (odd bool, err error) {
	src := s.Src
	closing, empty := s.Enter()
	if empty {
		return false, nil
	}
	for {
		keyStart := s.Pos
		_, escaped, err := s.String(false)
		if err != nil {
			return false, err
		}
		key := src[keyStart+1 : s.Pos-1]
		if err := s.Colon(); err != nil {
			return false, err
		}
		valStart := s.Pos
		if err := s.SkipValue(depth); err != nil {
			return false, err
		}
		if escaped {
			// It may name a member once unescaped.
			odd = true
		} else if i := match(key, names); i >= 0 {
			if vals[i] != nil {
				odd = true // given twice
			}
			vals[i] = src[valStart:s.Pos]
		} else if i == foldedMatch {
			odd = true
		}
		more, err := s.Next(closing)
		if err != nil {
			return false, err
		}
		if !more {
			return odd, nil
		}
	}
}

// foldedMatch is match's answer for a key that equals a name only when
// case is ignored, which encoding/json would also take for it.
const foldedMatch = -2

// match returns the index of the name key equals, foldedMatch, or -1.
func match(key []byte, names []string) int {
	for i, n := range names {
		if string(key) == n {
			return i
		}
	}
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return foldedMatch
		}
	}
	return -1
}
