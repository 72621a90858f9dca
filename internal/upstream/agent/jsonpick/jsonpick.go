// Package jsonpick reads the few members proofgate uses from an agent's
// JSON answer in one pass: the whole document is checked exactly as
// encoding/json checks it before decoding (json.Valid), and the raw values
// of the named members are handed back to be decoded by the caller.
//
// encoding/json scans a document twice (checkValid, then the decode), copies
// every json.RawMessage and walks strings byte by byte; the agents' answers
// are mostly long strings (an invitation URL is the base64 of the
// invitation) and members proofgate never reads. Here strings are skipped
// eight bytes at a time (jsonenc.PlainRun) and unused members are only
// checked, not decoded.
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
// this builds nothing and keeps the answer's bytes. A tokenizer shared by
// both would have to serve both ways; that has not been worth it yet.
package jsonpick

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/proofgate/proofgate/internal/jsonenc"
)

// MaxDepth is encoding/json's nesting limit: deeper documents are not
// valid JSON to it.
const MaxDepth = 10000

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
	s := scanner{src: doc}
	s.space()
	switch {
	case s.pos < len(doc) && doc[s.pos] == '{':
		odd, err = s.object(0, names, vals)
	case s.pos < len(doc) && doc[s.pos] == 'n':
		err = s.literal("null")
		if err == nil {
			err = s.end()
		}
		return false, err
	default:
		if err = s.value(0); err == nil {
			if err = s.end(); err == nil {
				err = ErrType
			}
		}
		return false, err
	}
	if err != nil {
		clear(vals)
		return false, err
	}
	if err = s.end(); err != nil {
		clear(vals)
		return false, err
	}
	return odd, nil
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
	s := scanner{src: doc}
	s.space()
	if s.pos < len(doc) && doc[s.pos] == 'n' {
		if err := s.literal("null"); err != nil {
			return err
		}
		return s.end()
	}
	if s.pos >= len(doc) || doc[s.pos] != '[' {
		if err := s.value(0); err != nil {
			return err
		}
		if err := s.end(); err != nil {
			return err
		}
		return ErrType
	}
	var buf [16][]byte
	vals := buf[:0]
	if len(names) <= len(buf) {
		vals = buf[:len(names)]
	} else {
		vals = make([][]byte, len(names))
	}
	s.pos++
	s.space()
	if s.pos < len(doc) && doc[s.pos] == ']' {
		s.pos++
		return s.end()
	}
	for {
		s.space()
		start := s.pos
		if start < len(doc) && doc[start] == '{' {
			clear(vals)
			odd, err := s.object(1, names, vals)
			if err != nil {
				return err
			}
			each(doc[start:s.pos], vals, odd)
		} else if err := s.value(1); err != nil {
			return err
		}
		s.space()
		if s.pos >= len(doc) {
			return ErrSyntax
		}
		c := doc[s.pos]
		s.pos++
		if c == ']' {
			return s.end()
		}
		if c != ',' {
			return ErrSyntax
		}
	}
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
	if i := jsonenc.PlainRun(body, 0, false); i == len(body) ||
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

// scanner checks JSON as encoding/json's scanner does (the same grammar,
// whitespace and depth limit; like it, it does not check UTF-8).
type scanner struct {
	src []byte
	pos int
}

// end checks that only whitespace follows the value.
func (s *scanner) end() error {
	s.space()
	if s.pos != len(s.src) {
		return ErrSyntax
	}
	return nil
}

func (s *scanner) space() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value checks one value starting at s.pos (no leading whitespace) at
// nesting depth depth, and moves past it.
func (s *scanner) value(depth int) error {
	if s.pos >= len(s.src) {
		return ErrSyntax
	}
	switch c := s.src[s.pos]; {
	case c == '{':
		_, err := s.object(depth, nil, nil)
		return err
	case c == '[':
		return s.array(depth)
	case c == '"':
		_, err := s.str()
		return err
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return ErrSyntax
}

func (s *scanner) literal(lit string) error {
	if len(s.src)-s.pos < len(lit) || string(s.src[s.pos:s.pos+len(lit)]) != lit {
		return ErrSyntax
	}
	s.pos += len(lit)
	return nil
}

// number checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() error {
	src := s.src
	if src[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos >= len(src):
		return ErrSyntax
	case src[s.pos] == '0':
		s.pos++
	case '1' <= src[s.pos] && src[s.pos] <= '9':
		s.digits()
	default:
		return ErrSyntax
	}
	if s.pos < len(src) && src[s.pos] == '.' {
		s.pos++
		if !s.digits() {
			return ErrSyntax
		}
	}
	if s.pos < len(src) && (src[s.pos] == 'e' || src[s.pos] == 'E') {
		s.pos++
		if s.pos < len(src) && (src[s.pos] == '+' || src[s.pos] == '-') {
			s.pos++
		}
		if !s.digits() {
			return ErrSyntax
		}
	}
	return nil
}

// digits moves past [0-9]* and reports whether there was one.
func (s *scanner) digits() bool {
	start := s.pos
	for s.pos < len(s.src) && '0' <= s.src[s.pos] && s.src[s.pos] <= '9' {
		s.pos++
	}
	return s.pos > start
}

// str checks the string starting at s.pos and moves past it; escaped
// reports whether it holds an escape.
func (s *scanner) str() (escaped bool, err error) {
	src := s.src
	s.pos++ // the opening quote
	for {
		s.pos = jsonenc.PlainRun(src, s.pos, false)
		if s.pos >= len(src) {
			return escaped, ErrSyntax
		}
		switch c := src[s.pos]; {
		case c == '"':
			s.pos++
			return escaped, nil
		case c == '\\':
			escaped = true
			s.pos++
			if s.pos >= len(src) {
				return escaped, ErrSyntax
			}
			switch src[s.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos++
			case 'u':
				if len(src)-s.pos < 5 {
					return escaped, ErrSyntax
				}
				for _, h := range src[s.pos+1 : s.pos+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return escaped, ErrSyntax
					}
				}
				s.pos += 5
			default:
				return escaped, ErrSyntax
			}
		case c < 0x20:
			return escaped, ErrSyntax
		default: // a byte of a multi-byte sequence, not checked (as encoding/json)
			s.pos++
		}
	}
}

func (s *scanner) array(depth int) error {
	if depth++; depth > MaxDepth {
		return ErrSyntax
	}
	src := s.src
	s.pos++ // '['
	s.space()
	if s.pos < len(src) && src[s.pos] == ']' {
		s.pos++
		return nil
	}
	for {
		s.space()
		if err := s.value(depth); err != nil {
			return err
		}
		s.space()
		if s.pos >= len(src) {
			return ErrSyntax
		}
		c := src[s.pos]
		s.pos++
		if c == ']' {
			return nil
		}
		if c != ',' {
			return ErrSyntax
		}
	}
}

// object checks the object starting at s.pos and moves past it, picking
// the members named in names into vals (names is nil below the top).
func (s *scanner) object(depth int, names []string, vals [][]byte) (odd bool, err error) {
	if depth++; depth > MaxDepth {
		return false, ErrSyntax
	}
	src := s.src
	s.pos++ // '{'
	s.space()
	if s.pos < len(src) && src[s.pos] == '}' {
		s.pos++
		return false, nil
	}
	for {
		s.space()
		if s.pos >= len(src) || src[s.pos] != '"' {
			return false, ErrSyntax
		}
		keyStart := s.pos
		escaped, err := s.str()
		if err != nil {
			return false, err
		}
		key := src[keyStart+1 : s.pos-1]
		s.space()
		if s.pos >= len(src) || src[s.pos] != ':' {
			return false, ErrSyntax
		}
		s.pos++
		s.space()
		valStart := s.pos
		if err := s.value(depth); err != nil {
			return false, err
		}
		if names != nil {
			if escaped {
				// It may name a member once unescaped.
				odd = true
			} else if i := match(key, names); i >= 0 {
				if vals[i] != nil {
					odd = true // given twice
				}
				vals[i] = src[valStart:s.pos]
			} else if i == foldedMatch {
				odd = true
			}
		}
		s.space()
		if s.pos >= len(src) {
			return false, ErrSyntax
		}
		c := src[s.pos]
		s.pos++
		if c == '}' {
			return odd, nil
		}
		if c != ',' {
			return false, ErrSyntax
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
