// Package jsonlimit measures JSON text before it is decoded: how deep it
// nests and how many values it holds. Decoding a document builds a tree
// whose size and depth the sender chose; checking the text first costs one
// pass and no allocation, and lets the caller refuse what it will not
// build.
package jsonlimit

import (
	"errors"
	"fmt"
)

// Limits of the documents the verifier reads from provers.
const (
	// MaxDepth is the deepest nesting of objects and arrays. A
	// present-proof message with a presentation of credentials nests about
	// 12 levels.
	MaxDepth = 64
	// MaxValues is the most JSON values (objects, arrays, strings,
	// numbers, literals; member names not counted). A presentation of a
	// few credentials holds a few hundred.
	MaxValues = 20_000
)

// ErrInvalid: the text is not JSON.
var ErrInvalid = errors.New("not valid JSON")

// LimitError says which limit a document exceeds.
type LimitError struct {
	// Depth is true for the nesting limit, false for the value count.
	Depth bool
	Limit int
}

func (e *LimitError) Error() string {
	if e.Depth {
		return fmt.Sprintf("nests deeper than %d levels", e.Limit)
	}
	return fmt.Sprintf("holds more than %d values", e.Limit)
}

// Check scans one JSON text and fails with a *LimitError when it nests
// deeper than maxDepth or holds more than maxValues values, or with
// ErrInvalid when it is not JSON. It stops at the first limit exceeded.
func Check(b []byte, maxDepth, maxValues int) error {
	s := scanner{b: b, maxDepth: maxDepth, maxValues: maxValues}
	s.ws()
	if err := s.value(); err != nil {
		return err
	}
	s.ws()
	if s.i != len(s.b) {
		return ErrInvalid
	}
	return nil
}

type scanner struct {
	b                   []byte
	i                   int
	depth, values       int
	maxDepth, maxValues int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) count() error {
	s.values++
	if s.values > s.maxValues {
		return &LimitError{Limit: s.maxValues}
	}
	return nil
}

// value scans one value. Containers are walked with an explicit depth
// counter and a loop, not recursion per level beyond maxDepth: the
// recursion is cut at maxDepth, so the stack stays small.
func (s *scanner) value() error {
	if s.i >= len(s.b) {
		return ErrInvalid
	}
	if err := s.count(); err != nil {
		return err
	}
	switch c := s.b[s.i]; {
	case c == '{' || c == '[':
		s.depth++
		if s.depth > s.maxDepth {
			return &LimitError{Depth: true, Limit: s.maxDepth}
		}
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		s.i++
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == closer {
			s.i++
			s.depth--
			return nil
		}
		for {
			if c == '{' {
				if s.i >= len(s.b) || s.b[s.i] != '"' {
					return ErrInvalid
				}
				if err := s.str(); err != nil {
					return err
				}
				s.ws()
				if s.i >= len(s.b) || s.b[s.i] != ':' {
					return ErrInvalid
				}
				s.i++
				s.ws()
			}
			if err := s.value(); err != nil {
				return err
			}
			s.ws()
			if s.i >= len(s.b) {
				return ErrInvalid
			}
			if s.b[s.i] == closer {
				s.i++
				s.depth--
				return nil
			}
			if s.b[s.i] != ',' {
				return ErrInvalid
			}
			s.i++
			s.ws()
		}
	case c == '"':
		return s.str()
	case c == 't':
		return s.word("true")
	case c == 'f':
		return s.word("false")
	case c == 'n':
		return s.word("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return ErrInvalid
}

func (s *scanner) word(w string) error {
	if len(s.b)-s.i < len(w) || string(s.b[s.i:s.i+len(w)]) != w {
		return ErrInvalid
	}
	s.i += len(w)
	return nil
}

func (s *scanner) str() error {
	s.i++ // opening quote
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return nil
		case c == '\\':
			s.i += 2
		case c < 0x20:
			return ErrInvalid
		default:
			s.i++
		}
	}
	return ErrInvalid
}

func (s *scanner) number() error {
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			s.i++
		default:
			if s.i == start {
				return ErrInvalid
			}
			return nil
		}
	}
	return nil
}
