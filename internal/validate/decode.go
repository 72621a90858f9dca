package validate

import (
	"errors"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// maxDepth bounds nesting so a hostile body (e.g. 1 MiB of "[") cannot
// drive the recursive walks into deep stacks. Real requests, presentation
// definitions with JSON Schema filters included, stay far below it.
const maxDepth = 64

// errAbort stops decoding after a problem that makes the rest unreadable.
var errAbort = errors.New("abort")

// decodeObject reads body as exactly one JSON object into a generic tree
// (map[string]any, []any, string, json.Number, bool, nil), as parse does,
// reporting the same problems. The 4.1 rules read the parsed document
// directly; the presentation definition checks build this tree of their
// part only (value.any), and FuzzDecode holds it to encoding/json. The
// tree's strings share body's memory.
func decodeObject(body []byte, c *collector) map[string]any {
	var p parser
	d, ok := p.parse(body, c)
	if !ok {
		return nil
	}
	return d.root().any().(map[string]any)
}

// parse reads body as exactly one JSON object (RFC 8259) into p's document,
// reporting duplicate keys at any depth with their field path.
// encoding/json keeps the last of two duplicates silently, which would let
// a proxy and an agent read different requests from the same bytes; and
// its Decoder.Token, which could see them, costs most of a request's
// validation time. Hence this small parser.
//
// It returns false when the body is not readable as one object; duplicate
// keys are reported but decoding goes on, so other problems show too. The
// document is valid until p is reset.
func (p *parser) parse(body []byte, c *collector) (*document, bool) {
	if !utf8.Valid(body) {
		c.add("body", "is not valid UTF-8")
		return nil, false
	}
	// The body as a string, sharing its memory (the callers never modify
	// a body they validated): every key and unescaped string value is a
	// substring of it, so decoding allocates no string data.
	p.buf, p.src, p.pos, p.c = body, unsafe.String(unsafe.SliceData(body), len(body)), 0, c
	p.doc.nodes, p.doc.probes = p.doc.nodes[:0], 0
	p.skipSpace()
	if p.pos == len(p.buf) {
		c.add("body", "must be a JSON object, got nothing")
		return nil, false
	}
	if p.buf[p.pos] != '{' {
		c.add("body", "must be a JSON object")
		return nil, false
	}
	if err := p.value(nil, 0, ""); err != nil {
		return nil, false
	}
	p.skipSpace()
	if p.pos != len(p.buf) {
		c.add("body", "unexpected data after the JSON object")
		return nil, false
	}
	return &p.doc, true
}

// smallObject is the member count up to which duplicate keys are found by
// comparing with the earlier members; larger objects use a map.
const smallObject = 16

type parser struct {
	buf []byte
	src string // buf as a string, for substrings
	pos int
	c   *collector
	doc document
	// problems is the collector of OOB, kept with the parser so that its
	// list is reused.
	problems collector
	// path holds the field path of the value being parsed, one node per
	// level: a container at depth d names its members in path[d]. Only
	// the current path is ever needed (problems are formatted at once),
	// so the nodes are reused and none is allocated.
	path [maxDepth + 2]pathNode
	// deepest is the deepest entry of path used, to clear no more.
	deepest int
}

// at returns the path entry of depth.
func (p *parser) at(depth int) *pathNode {
	p.deepest = max(p.deepest, depth)
	return &p.path[depth]
}

func (p *parser) fail(problem string) error {
	p.c.add("body", "invalid JSON near byte "+strconv.Itoa(p.pos)+": "+problem)
	return errAbort
}

func (p *parser) failEOF() error {
	p.c.add("body", "invalid JSON: unexpected end of input")
	return errAbort
}

func (p *parser) skipSpace() {
	for p.pos < len(p.buf) {
		switch p.buf[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// push appends a node for a value (a member of an object when k is set
// by the caller) and returns its index.
func (p *parser) push(n node) int32 {
	if len(p.doc.nodes) == maxPooledNodes {
		p.reserve()
	}
	p.doc.nodes = append(p.doc.nodes, n)
	i := int32(len(p.doc.nodes) - 1)
	p.doc.nodes[i].end = i + 1
	return i
}

// reserve makes room at once for the nodes of the rest of a large body,
// which is being pushed its maxPooledNodes+1st value (spaces read, its
// first byte or all of it). append's growth of a large slice by a
// quarter would allocate five times the final array: a body of a million
// one-digit values, 100 times its size. One node at most follows each
// '[', ',' and ':' outside strings still to read, one more the '[' just
// read, and one is being pushed; an invalid body may be short of room,
// and append takes over.
//
//go:noinline
func (p *parser) reserve() {
	n, inString := 2, false
	rest := p.buf[p.pos:]
	for i := 0; i < len(rest); i++ {
		if inString {
			switch rest[i] {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch rest[i] {
		case '"':
			inString = true
		case ',', ':', '[':
			n++
		}
	}
	p.doc.nodes = slices.Grow(p.doc.nodes, n)
}

// value parses the value at p.pos (spaces already skipped) into a node
// carrying k, its key in the enclosing object.
func (p *parser) value(at *pathNode, depth int, k string) error {
	if p.pos >= len(p.buf) {
		return p.failEOF()
	}
	switch b := p.buf[p.pos]; {
	case b == '{':
		if depth >= maxDepth {
			p.c.add("body", "nested deeper than "+strconv.Itoa(maxDepth)+" levels")
			return errAbort
		}
		return p.object(at, depth+1, k)
	case b == '[':
		if depth >= maxDepth {
			p.c.add("body", "nested deeper than "+strconv.Itoa(maxDepth)+" levels")
			return errAbort
		}
		return p.array(at, depth+1, k)
	case b == '"':
		s, err := p.string()
		if err != nil {
			return err
		}
		p.push(node{kind: kindString, key: k, str: s})
		return nil
	case b == '-' || b >= '0' && b <= '9':
		s, err := p.number()
		if err != nil {
			return err
		}
		p.push(node{kind: kindNumber, key: k, str: s})
		return nil
	case b == 't':
		p.push(node{kind: kindBool, key: k, b: true})
		return p.literal("true")
	case b == 'f':
		p.push(node{kind: kindBool, key: k})
		return p.literal("false")
	case b == 'n':
		p.push(node{kind: kindNull, key: k})
		return p.literal("null")
	}
	return p.fail("unexpected character " + strconv.QuoteRune(rune(p.buf[p.pos])) + " where a value belongs")
}

func (p *parser) literal(word string) error {
	if len(p.buf)-p.pos < len(word) {
		if string(p.buf[p.pos:]) == word[:len(p.buf)-p.pos] {
			return p.failEOF()
		}
		return p.fail("invalid literal (true, false or null expected)")
	}
	if string(p.buf[p.pos:p.pos+len(word)]) != word {
		return p.fail("invalid literal (true, false or null expected)")
	}
	p.pos += len(word)
	return nil
}

func (p *parser) object(at *pathNode, depth int, k string) error {
	p.pos++ // '{'
	obj := p.push(node{kind: kindObject, key: k})
	p.skipSpace()
	if p.pos < len(p.buf) && p.buf[p.pos] == '}' {
		p.pos++
		return nil
	}
	var members int32
	var byKey map[string]int32 // the latest member of each key, in large objects
	for {
		p.skipSpace()
		if p.pos >= len(p.buf) {
			return p.failEOF()
		}
		if p.buf[p.pos] != '"' {
			return p.fail("object key expected (a string)")
		}
		k, err := p.string()
		if err != nil {
			return err
		}
		here := p.at(depth)
		*here = pathNode{parent: at, key: k}
		member := int32(len(p.doc.nodes))
		if prev := p.latest(obj, k, members, &byKey); prev >= 0 {
			p.c.at(here, "duplicate key")
			p.doc.nodes[prev].shadowed = true
		} else {
			p.doc.nodes[obj].n++
		}
		if byKey != nil {
			byKey[k] = member
		}
		members++
		p.skipSpace()
		if p.pos >= len(p.buf) {
			return p.failEOF()
		}
		if p.buf[p.pos] != ':' {
			return p.fail("':' expected after an object key")
		}
		p.pos++
		p.skipSpace()
		if err := p.value(here, depth, k); err != nil {
			return err
		}
		p.doc.nodes[obj].end = int32(len(p.doc.nodes))
		p.skipSpace()
		if p.pos >= len(p.buf) {
			return p.failEOF()
		}
		switch p.buf[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return nil
		default:
			return p.fail("',' or '}' expected in an object")
		}
	}
}

// latest returns the index of the member of obj named k that is not yet
// shadowed by a later one, or -1. Up to smallObject members it compares
// with each; past that it keeps the members in *byKey.
func (p *parser) latest(obj int32, k string, members int32, byKey *map[string]int32) int32 {
	nodes := p.doc.nodes
	if *byKey == nil {
		if members < smallObject {
			for i := obj + 1; i < int32(len(nodes)); i = nodes[i].end {
				if !nodes[i].shadowed && nodes[i].key == k {
					return i
				}
			}
			return -1
		}
		*byKey = make(map[string]int32, 2*members)
		for i := obj + 1; i < int32(len(nodes)); i = nodes[i].end {
			if !nodes[i].shadowed {
				(*byKey)[nodes[i].key] = i
			}
		}
	}
	if i, ok := (*byKey)[k]; ok {
		return i
	}
	return -1
}

func (p *parser) array(at *pathNode, depth int, k string) error {
	p.pos++ // '['
	arr := p.push(node{kind: kindArray, key: k})
	p.skipSpace()
	if p.pos < len(p.buf) && p.buf[p.pos] == ']' {
		p.pos++
		return nil
	}
	for i := 0; ; i++ {
		p.skipSpace()
		here := p.at(depth)
		*here = pathNode{parent: at, idx: i, isIdx: true}
		if err := p.value(here, depth, ""); err != nil {
			return err
		}
		p.doc.nodes[arr].n++
		p.doc.nodes[arr].end = int32(len(p.doc.nodes))
		p.skipSpace()
		if p.pos >= len(p.buf) {
			return p.failEOF()
		}
		switch p.buf[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return nil
		default:
			return p.fail("',' or ']' expected in an array")
		}
	}
}

// string parses a string literal at p.pos. The body is known to be valid
// UTF-8; escapes are decoded as encoding/json does (a lone surrogate
// becomes U+FFFD).
func (p *parser) string() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.buf) {
		b := p.buf[p.pos]
		if b == '"' {
			s := p.src[start:p.pos]
			p.pos++
			return s, nil
		}
		if b == '\\' {
			break
		}
		if b < 0x20 {
			return "", p.fail("control character in a string (escape it)")
		}
		p.pos++
	}
	out := append([]byte(nil), p.buf[start:p.pos]...)
	for p.pos < len(p.buf) {
		b := p.buf[p.pos]
		switch {
		case b == '"':
			p.pos++
			return string(out), nil
		case b < 0x20:
			return "", p.fail("control character in a string (escape it)")
		case b != '\\':
			out = append(out, b)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.buf) {
			return "", p.failEOF()
		}
		esc := p.buf[p.pos+1]
		p.pos += 2
		switch esc {
		case '"', '\\', '/':
			out = append(out, esc)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.fail(`invalid \u escape`)
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(utf8.RuneError)
				if p.pos+1 < len(p.buf) && p.buf[p.pos] == '\\' && p.buf[p.pos+1] == 'u' {
					save := p.pos
					p.pos += 2
					if lo, ok := p.hex4(); ok {
						if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
							r2 = dec
						} else {
							p.pos = save
						}
					} else {
						return "", p.fail(`invalid \u escape`)
					}
				}
				r = r2
			}
			out = utf8.AppendRune(out, r)
		default:
			p.pos -= 2
			return "", p.fail("invalid escape in a string")
		}
	}
	return "", p.failEOF()
}

func (p *parser) hex4() (rune, bool) {
	if len(p.buf)-p.pos < 4 {
		return 0, false
	}
	var r rune
	for _, b := range p.buf[p.pos : p.pos+4] {
		switch {
		case b >= '0' && b <= '9':
			r = r<<4 | rune(b-'0')
		case b >= 'a' && b <= 'f':
			r = r<<4 | rune(b-'a'+10)
		case b >= 'A' && b <= 'F':
			r = r<<4 | rune(b-'A'+10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

// number checks the JSON number grammar and keeps the literal text.
func (p *parser) number() (string, error) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.buf) && p.buf[p.pos] >= '0' && p.buf[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.buf[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.buf) && p.buf[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return "", p.fail("invalid number")
	}
	if p.pos < len(p.buf) && p.buf[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return "", p.fail("invalid number")
		}
	}
	if p.pos < len(p.buf) && (p.buf[p.pos] == 'e' || p.buf[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.buf) && (p.buf[p.pos] == '+' || p.buf[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return "", p.fail("invalid number")
		}
	}
	return p.src[start:p.pos], nil
}
