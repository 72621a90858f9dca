package jsonld

import (
	"errors"
	"fmt"
	"time"
)

// Limits bound the work one document may cost. Credentials are small
// (a few KiB, a few dozen quads, a handful of blank nodes); everything
// beyond these bounds is refused before json-gold sees it.
type Limits struct {
	// MaxDepth caps the nesting of JSON objects and arrays.
	MaxDepth int
	// MaxValues caps the JSON values (objects, arrays, scalars) in one
	// document, inline contexts included.
	MaxValues int
	// MaxQuads caps the RDF statements the document expands to.
	MaxQuads int
	// MaxBlankNodes caps the blank nodes of the dataset.
	MaxBlankNodes int
	// MaxTwinBlankNodes caps how many blank nodes may share one
	// first-degree hash: RDFC-1.0 permutes such groups, which is
	// factorial in their size (the "poison graph" attack).
	MaxTwinBlankNodes int
	// Timeout bounds one canonicalization (json-gold cannot be
	// cancelled: an overrunning run keeps its worker slot until it ends,
	// so at most Workers runs burn CPU at any time).
	Timeout time.Duration
}

// DefaultLimits are generous for real credentials and presentations.
var DefaultLimits = Limits{
	MaxDepth:          32,
	MaxValues:         20000,
	MaxQuads:          5000,
	MaxBlankNodes:     500,
	MaxTwinBlankNodes: 6,
	Timeout:           5 * time.Second,
}

// ErrLimits is wrapped by every refusal for exceeding a Limit.
var ErrLimits = errors.New("document exceeds the verifier's limits")

func limitErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrLimits, fmt.Sprintf(format, args...))
}

// CheckShape enforces MaxDepth and MaxValues on a decoded JSON document
// (encoding/json types). It walks iteratively so a deep document cannot
// exhaust the stack.
func (l Limits) CheckShape(doc any) error {
	type item struct {
		v     any
		depth int
	}
	stack := []item{{doc, 1}}
	values := 0
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		values++
		if values > l.MaxValues {
			return limitErr("more than %d JSON values", l.MaxValues)
		}
		switch v := it.v.(type) {
		case map[string]any:
			if it.depth > l.MaxDepth {
				return limitErr("nested deeper than %d", l.MaxDepth)
			}
			for _, c := range v {
				stack = append(stack, item{c, it.depth + 1})
			}
		case []any:
			if it.depth > l.MaxDepth {
				return limitErr("nested deeper than %d", l.MaxDepth)
			}
			for _, c := range v {
				stack = append(stack, item{c, it.depth + 1})
			}
		}
	}
	return nil
}
