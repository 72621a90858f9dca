package validate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"
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

// collector gathers problems while a request is walked. The messages are
// written back to back into one buffer (kept with the pooled parser, so a
// rejected request formats its problems without allocating) and become
// strings only in errors, all in one allocation.
type collector struct {
	text []byte // the messages, back to back
	ends []int  // where each message ends in text
	out  Errors // the list messages returns, reused
}

// add adds the problem of the field at path ("" is the body).
func (c *collector) add(path, problem string) {
	if path == "" {
		path = "body"
	}
	c.text = append(c.text, path...)
	c.text = append(c.text, ": "...)
	c.text = append(c.text, problem...)
	c.ends = append(c.ends, len(c.text))
}

// addMessage adds a message already written "fieldpath: problem".
func (c *collector) addMessage(m string) {
	c.text = append(c.text, m...)
	c.ends = append(c.ends, len(c.text))
}

// at adds a problem of the value at path.
func (c *collector) at(path *pathNode, problem string) {
	start := len(c.text)
	c.text = path.appendTo(c.text, start)
	if len(c.text) == start {
		c.text = append(c.text, "body"...)
	}
	c.text = append(c.text, ": "...)
	c.text = append(c.text, problem...)
	c.ends = append(c.ends, len(c.text))
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

func (c *collector) empty() bool { return len(c.ends) == 0 }

// count is the number of problems added.
func (c *collector) count() int { return len(c.ends) }

// messages returns the problems sorted by path and without repeats, so the
// answer to one body is always the same list. The strings share c.text,
// and the list is c's own: both hold until c is next written or reset.
func (c *collector) messages() Errors {
	if len(c.ends) == 0 {
		return nil
	}
	all := unsafe.String(unsafe.SliceData(c.text), len(c.text))
	msgs := c.out[:0]
	start := 0
	for _, end := range c.ends {
		msgs = append(msgs, all[start:end])
		start = end
	}
	if len(msgs) <= 16 {
		// Insertion sort: a rejected request has a handful of problems.
		for i := 1; i < len(msgs); i++ {
			for j := i; j > 0 && msgs[j] < msgs[j-1]; j-- {
				msgs[j], msgs[j-1] = msgs[j-1], msgs[j]
			}
		}
	} else {
		slices.Sort(msgs)
	}
	msgs = slices.Compact(msgs)
	c.out = msgs
	return msgs
}

// errors returns messages() in memory of their own: the list and the text
// of its messages are two allocations, however many problems there are.
func (c *collector) errors() Errors {
	msgs := c.messages()
	if msgs == nil {
		return nil
	}
	size := 0
	for _, m := range msgs {
		size += len(m)
	}
	text := make([]byte, 0, size)
	for _, m := range msgs {
		text = append(text, m...)
	}
	// text is never written again: the messages may share it.
	all := unsafe.String(unsafe.SliceData(text), len(text))
	out := make(Errors, len(msgs))
	for k, m := range msgs {
		out[k], all = all[:len(m)], all[len(m):]
	}
	return out
}

// reset empties c for reuse, keeping its buffers unless they grew large.
func (c *collector) reset() {
	clear(c.out)
	if cap(c.text) > maxPooledProblemText || cap(c.ends) > maxPooledProblems {
		c.text, c.ends, c.out = nil, nil, nil
		return
	}
	c.text, c.ends, c.out = c.text[:0], c.ends[:0], c.out[:0]
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
