package validate

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds nesting so a hostile body (e.g. 1 MiB of "[") cannot
// drive the recursive walks into deep stacks. Real requests, presentation
// definitions with JSON Schema filters included, stay far below it.
const maxDepth = 64

// errAbort stops decoding after a problem that makes the rest unreadable.
var errAbort = errors.New("abort")

// decodeObject reads body as exactly one JSON object (RFC 8259) into a
// generic tree (map[string]any, []any, string, json.Number, bool, nil),
// reporting duplicate keys at any depth with their field path.
// encoding/json keeps the last of two duplicates silently, which would let
// a proxy and an agent read different requests from the same bytes; and
// its Decoder.Token, which could see them, costs most of a request's
// validation time. Hence this small parser.
//
// It returns nil when the body is not readable as one object; duplicate
// keys are reported but decoding goes on, so other problems show too.
func decodeObject(body []byte, c *collector) map[string]any {
	if !utf8.Valid(body) {
		c.add("body", "is not valid UTF-8")
		return nil
	}
	// One copy of the body as a string: every key and unescaped string
	// value is a substring of it, so decoding allocates no string data.
	p := parser{buf: body, src: string(body), c: c}
	p.skipSpace()
	if p.pos == len(p.buf) {
		c.add("body", "must be a JSON object, got nothing")
		return nil
	}
	if p.buf[p.pos] != '{' {
		c.add("body", "must be a JSON object")
		return nil
	}
	v, err := p.value(nil, 0)
	if err != nil {
		return nil
	}
	p.skipSpace()
	if p.pos != len(p.buf) {
		c.add("body", "unexpected data after the JSON object")
		return nil
	}
	return v.(map[string]any)
}

// pathNode is a field path kept as a chain and formatted only when a
// problem is reported, so decoding a valid body builds no path strings.
type pathNode struct {
	parent *pathNode
	key    string
	idx    int
	isIdx  bool
}

func (p *pathNode) String() string {
	if p == nil {
		return ""
	}
	parent := p.parent.String()
	if p.isIdx {
		return index(parent, p.idx)
	}
	return key(parent, p.key)
}

type parser struct {
	buf []byte
	src string // buf as a string, for substrings
	pos int
	c   *collector
	// path holds the field path of the value being parsed, one node per
	// level: a container at depth d names its members in path[d]. Only
	// the current path is ever needed (problems are formatted at once),
	// so the nodes are reused and none is allocated.
	path [maxDepth + 2]pathNode
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

// value parses the value at p.pos (spaces already skipped).
func (p *parser) value(at *pathNode, depth int) (any, error) {
	if p.pos >= len(p.buf) {
		return nil, p.failEOF()
	}
	switch b := p.buf[p.pos]; {
	case b == '{':
		if depth >= maxDepth {
			p.c.add("body", "nested deeper than "+strconv.Itoa(maxDepth)+" levels")
			return nil, errAbort
		}
		return p.object(at, depth+1)
	case b == '[':
		if depth >= maxDepth {
			p.c.add("body", "nested deeper than "+strconv.Itoa(maxDepth)+" levels")
			return nil, errAbort
		}
		return p.array(at, depth+1)
	case b == '"':
		return p.string()
	case b == '-' || b >= '0' && b <= '9':
		return p.number()
	case b == 't':
		return true, p.literal("true")
	case b == 'f':
		return false, p.literal("false")
	case b == 'n':
		return nil, p.literal("null")
	}
	return nil, p.fail("unexpected character " + strconv.QuoteRune(rune(p.buf[p.pos])) + " where a value belongs")
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

func (p *parser) object(at *pathNode, depth int) (map[string]any, error) {
	p.pos++ // '{'
	obj := make(map[string]any)
	p.skipSpace()
	if p.pos < len(p.buf) && p.buf[p.pos] == '}' {
		p.pos++
		return obj, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.buf) {
			return nil, p.failEOF()
		}
		if p.buf[p.pos] != '"' {
			return nil, p.fail("object key expected (a string)")
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		here := &p.path[depth]
		*here = pathNode{parent: at, key: k}
		if _, dup := obj[k]; dup {
			p.c.add(here.String(), "duplicate key")
		}
		p.skipSpace()
		if p.pos >= len(p.buf) {
			return nil, p.failEOF()
		}
		if p.buf[p.pos] != ':' {
			return nil, p.fail("':' expected after an object key")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(here, depth)
		if err != nil {
			return nil, err
		}
		obj[k] = v
		p.skipSpace()
		if p.pos >= len(p.buf) {
			return nil, p.failEOF()
		}
		switch p.buf[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return obj, nil
		default:
			return nil, p.fail("',' or '}' expected in an object")
		}
	}
}

func (p *parser) array(at *pathNode, depth int) ([]any, error) {
	p.pos++ // '['
	arr := []any{}
	p.skipSpace()
	if p.pos < len(p.buf) && p.buf[p.pos] == ']' {
		p.pos++
		return arr, nil
	}
	for i := 0; ; i++ {
		p.skipSpace()
		here := &p.path[depth]
		*here = pathNode{parent: at, idx: i, isIdx: true}
		v, err := p.value(here, depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		p.skipSpace()
		if p.pos >= len(p.buf) {
			return nil, p.failEOF()
		}
		switch p.buf[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return arr, nil
		default:
			return nil, p.fail("',' or ']' expected in an array")
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
func (p *parser) number() (any, error) {
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
		return nil, p.fail("invalid number")
	}
	if p.pos < len(p.buf) && p.buf[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.fail("invalid number")
		}
	}
	if p.pos < len(p.buf) && (p.buf[p.pos] == 'e' || p.buf[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.buf) && (p.buf[p.pos] == '+' || p.buf[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.fail("invalid number")
		}
	}
	return json.Number(p.src[start:p.pos]), nil
}
