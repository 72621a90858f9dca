package validate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/proofgate/proofgate/internal/backend"
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

// Bounds of the problems of one request. A body built to fail every rule
// (a duplicate key or a bad element per few bytes) must not cost more than
// a small multiple of its size, nor buy an answer larger than itself: past
// maxProblems problems, or maxProblemText bytes of them, problems are
// counted, not formatted, and the list holds the first maxProblems found
// and "… and N more". maxProblems is handlers.MaxMessages, so that the
// 400 shows the list as it is (its count line is a line of its own, as
// the handler's own cap writes it). A path longer than
// maxPathBytes keeps its start and end around "…"; a problem longer than
// maxProblemBytes (it may quote what the client sent) keeps its start.
const (
	maxProblems     = 100
	maxProblemText  = 32 << 10
	maxPathBytes    = 256
	maxProblemBytes = 1024

	ellipsis = "…"
	// pathHead and pathTail are the bytes of a shortened path kept before
	// and after the ellipsis (at most: cuts fall between characters).
	pathHead = 128
	pathTail = maxPathBytes - pathHead - len(ellipsis)
)

// collector gathers problems while a request is walked. The messages are
// written back to back into one buffer (kept with the pooled parser, so a
// rejected request formats its problems without allocating) and become
// strings only in errors, all in one allocation.
type collector struct {
	text []byte // the messages, back to back
	ends []int  // where each message ends in text
	out  Errors // the list messages returns, reused
	more []byte // its last line when problems were dropped, reused

	n       int // problems added, kept or not
	dropped int // problems past the bounds, counted only
}

// admit counts a problem and reports whether it is to be written: once
// maxProblems are kept or one problem was dropped, the next are dropped,
// so that the kept ones are the first found.
func (c *collector) admit() bool {
	c.n++
	if c.dropped > 0 || len(c.ends) >= maxProblems {
		c.dropped++
		return false
	}
	return true
}

// full reports whether problems are now only counted: a caller whose
// message costs more than a count to build (a path or a suggestion to
// work out) asks first, and calls drop instead.
func (c *collector) full() bool { return c.dropped > 0 || len(c.ends) >= maxProblems }

// drop counts a problem that full said not to write.
func (c *collector) drop() {
	c.n++
	c.dropped++
}

// commit ends the message written at text[start:]: kept, or taken back
// when it repeats the one before (messages drops repeats anyway; a body
// repeating one key thousands of times must not fill the list with them)
// or goes past maxProblemText.
func (c *collector) commit(start int) {
	if k := len(c.ends); k > 0 {
		prev := 0
		if k > 1 {
			prev = c.ends[k-2]
		}
		if string(c.text[prev:start]) == string(c.text[start:]) {
			c.text = c.text[:start]
			return
		}
	}
	if len(c.text) > maxProblemText {
		c.text = c.text[:start]
		c.dropped++
		return
	}
	c.ends = append(c.ends, len(c.text))
}

// add adds the problem of the field at path ("" is the body).
func (c *collector) add(path, problem string) {
	if !c.admit() {
		return
	}
	if path == "" {
		path = "body"
	}
	start := len(c.text)
	c.text = appendPathString(c.text, path)
	c.text = append(c.text, ": "...)
	c.text = appendProblem(c.text, problem)
	c.commit(start)
}

// addMessage adds a message already written "fieldpath: problem".
func (c *collector) addMessage(m string) {
	if !c.admit() {
		return
	}
	start := len(c.text)
	c.text = appendCut(c.text, m, maxPathBytes+len(": ")+maxProblemBytes)
	c.commit(start)
}

// at adds a problem of the value at path. The path is formatted only when
// the problem is kept, and then at most maxPathBytes of it.
func (c *collector) at(path *pathNode, problem string) {
	if !c.admit() {
		return
	}
	start := len(c.text)
	c.text = appendPath(c.text, path)
	c.text = append(c.text, ": "...)
	c.text = appendProblem(c.text, problem)
	c.commit(start)
}

// atf is at with the problem formatted, only when it is kept.
func (c *collector) atf(path *pathNode, format string, args ...any) {
	if c.full() {
		c.drop()
		return
	}
	c.at(path, fmt.Sprintf(format, args...))
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
	if c.full() {
		c.drop()
		return
	}
	c.add(path, fmt.Sprintf(format, args...))
}

func (c *collector) empty() bool { return c.n == 0 }

// count is the number of problems added, kept or not.
func (c *collector) count() int { return c.n }

// messages returns the problems sorted by path and without repeats, so the
// answer to one body is always the same list; when problems were dropped,
// at most maxProblems of them and "… and N more". The strings share
// c.text, and the list is c's own: both hold until c is next written or
// reset.
func (c *collector) messages() Errors {
	if len(c.ends) == 0 && c.dropped == 0 {
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
	if c.dropped > 0 {
		more := c.dropped
		if len(msgs) > maxProblems {
			more += len(msgs) - maxProblems
			msgs = msgs[:maxProblems]
		}
		c.more = append(c.more[:0], ellipsis+" and "...)
		c.more = strconv.AppendInt(c.more, int64(more), 10)
		c.more = append(c.more, " more"...)
		msgs = append(msgs, unsafe.String(unsafe.SliceData(c.more), len(c.more)))
	}
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
	c.n, c.dropped = 0, 0
	if cap(c.text) > maxPooledProblemText || cap(c.ends) > maxPooledProblems {
		c.text, c.ends, c.out = nil, nil, nil
		return
	}
	c.text, c.ends, c.out = c.text[:0], c.ends[:0], c.out[:0]
}

// appendProblem appends problem, shortened to maxProblemBytes.
func appendProblem(b []byte, problem string) []byte {
	return appendCut(b, problem, maxProblemBytes)
}

// appendCut appends s, or when it is longer than limit bytes its start and
// an ellipsis, limit bytes at most.
func appendCut(b []byte, s string, limit int) []byte {
	if len(s) <= limit {
		return append(b, s...)
	}
	b = append(b, s[:headCut(s, limit-len(ellipsis))]...)
	return append(b, ellipsis...)
}

// appendPathString appends a formatted path, shortened as appendPath
// shortens one: its first pathHead and last pathTail bytes around an
// ellipsis when it is longer than maxPathBytes.
func appendPathString(b []byte, path string) []byte {
	if len(path) <= maxPathBytes {
		return append(b, path...)
	}
	b = append(b, path[:headCut(path, pathHead)]...)
	b = append(b, ellipsis...)
	return append(b, path[tailCut(path, len(path)-pathTail):]...)
}

// headCut is where to end a start of s of at most n bytes (n < len(s)):
// not inside a character.
func headCut[S ~string | ~[]byte](s S, n int) int {
	for k := 1; k < utf8.UTFMax && n > 0 && !utf8.RuneStart(s[n]); k++ {
		n--
	}
	return n
}

// tailCut is where to start an end of s from byte i on: not inside a
// character.
func tailCut[S ~string | ~[]byte](s S, i int) int {
	for k := 1; k < utf8.UTFMax && i < len(s) && !utf8.RuneStart(s[i]); k++ {
		i++
	}
	return i
}

// key extends a field path with an object key (backend.Key).
func key(parent, k string) string { return backend.Key(parent, k) }

// index extends a field path with an array index.
func index(parent string, i int) string { return backend.Index(parent, i) }
