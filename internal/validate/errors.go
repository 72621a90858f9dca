package validate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Errors carries every problem found in one request, each written
// "fieldpath: problem" so a client can fix them all in one round trip.
// The handler sends it as the "message" array of a 400 body.
type Errors []string

// Error implements error. A single problem reads as itself.
func (e Errors) Error() string {
	switch len(e) {
	case 0:
		return "no problems"
	case 1:
		return e[0]
	}
	return strconv.Itoa(len(e)) + " problems: " + strings.Join(e, "; ")
}

// collector gathers problems while a request is walked.
type collector struct {
	msgs []string
}

func (c *collector) add(path, problem string) {
	if path == "" {
		path = "body"
	}
	c.msgs = append(c.msgs, path+": "+problem)
}

// at adds a problem of the value at path, building the message in one
// allocation.
func (c *collector) at(path *pathNode, problem string) {
	var buf [160]byte
	b := path.appendTo(buf[:0])
	if len(b) == 0 {
		b = append(b, "body"...)
	}
	b = append(b, ": "...)
	b = append(b, problem...)
	c.msgs = append(c.msgs, string(b))
}

// atKey adds a problem of member k of the object at path.
func (c *collector) atKey(path *pathNode, k, problem string) {
	p := path.child(k)
	c.at(&p, problem)
}

// atIndex adds a problem of element i of the array at path.
func (c *collector) atIndex(path *pathNode, i int, problem string) {
	p := path.elem(i)
	c.at(&p, problem)
}

func (c *collector) addf(path, format string, args ...any) {
	c.add(path, fmt.Sprintf(format, args...))
}

func (c *collector) empty() bool { return len(c.msgs) == 0 }

// errors returns the problems sorted by path and without repeats, so the
// answer to one body is always the same list.
func (c *collector) errors() Errors {
	msgs := slices.Clone(c.msgs)
	slices.Sort(msgs)
	return Errors(slices.Compact(msgs))
}

// key extends a field path with an object key: dotted when the key reads
// unambiguously, else bracketed and quoted (keys are caller-chosen, e.g.
// indy referents, and may hold dots or spaces).
func key(parent, k string) string {
	if !plainKey(k) {
		return parent + "[" + strconv.Quote(k) + "]"
	}
	if parent == "" {
		return k
	}
	return parent + "." + k
}

// index extends a field path with an array index.
func index(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		switch b := k[i]; {
		case b <= ' ' || b >= 0x7f:
			return false
		case b == '.' || b == '[' || b == ']' || b == '"':
			return false
		}
	}
	return true
}
