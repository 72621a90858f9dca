// Package jsonlimit measures JSON text before it is decoded: how deep it
// nests and how many values it holds. Decoding a document builds a tree
// whose size and depth the sender chose; checking the text first costs one
// pass and no allocation, and lets the caller refuse what it will not
// build.
package jsonlimit

import (
	"errors"
	"fmt"

	"github.com/proofgate/proofgate/internal/jsonscan"
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
// ErrInvalid when it is not JSON (as encoding/json judges it: the grammar
// is jsonscan's). It stops at the first limit exceeded.
func Check(b []byte, maxDepth, maxValues int) error {
	c := counter{s: jsonscan.Scanner{Src: b}, maxDepth: maxDepth, maxValues: maxValues}
	c.s.Space()
	if err := c.value(0); err != nil {
		return err
	}
	if c.s.End() != nil {
		return ErrInvalid
	}
	return nil
}

// counter walks a document with jsonscan, counting its values.
type counter struct {
	s                   jsonscan.Scanner
	values              int
	maxDepth, maxValues int
}

// value moves past one value at nesting depth (the containers around
// it). The recursion is cut at maxDepth, so the stack stays small.
func (c *counter) value(depth int) error {
	c.values++
	if c.values > c.maxValues {
		return &LimitError{Limit: c.maxValues}
	}
	if c.s.Pos >= len(c.s.Src) {
		return ErrInvalid
	}
	if b := c.s.Src[c.s.Pos]; b != '{' && b != '[' {
		// A scalar: the scanner's skip checks it.
		if c.s.SkipValue(depth) != nil {
			return ErrInvalid
		}
		return nil
	}
	if depth++; depth > c.maxDepth {
		return &LimitError{Depth: true, Limit: c.maxDepth}
	}
	closing, empty := c.s.Enter()
	if empty {
		return nil
	}
	for {
		if closing == '}' {
			if _, _, err := c.s.String(false); err != nil {
				return ErrInvalid
			}
			if c.s.Colon() != nil {
				return ErrInvalid
			}
		}
		if err := c.value(depth); err != nil {
			return err
		}
		more, err := c.s.Next(closing)
		if err != nil {
			return ErrInvalid
		}
		if !more {
			return nil
		}
	}
}
