package jsonenc

import "errors"

// errSyntax is AppendCompact's answer to a value that is not JSON; the
// caller reports which.
var errSyntax = errors.New("invalid JSON")

// MaxDepth is encoding/json's nesting limit.
const MaxDepth = 10000

// AppendCompact appends src as encoding/json compacts a json.RawMessage
// it encodes (json.Marshal with html, an Encoder without HTML escaping
// without): whitespace outside strings removed, and with html '<', '>',
// '&', U+2028 and U+2029 escaped as in AppendString (U+2028 and U+2029
// are kept without), after checking that src is exactly one JSON value.
// Unlike encoding/json's scanner, it walks strings, where nearly all of a
// document's bytes are, eight bytes at a time.
func AppendCompact(b, src []byte, html bool) ([]byte, error) {
	c := compactor{src: src, dst: b, html: html}
	c.space()
	if err := c.value(0); err != nil {
		return b, err
	}
	c.space()
	if c.pos != len(c.src) {
		return b, errSyntax
	}
	return c.dst, nil
}

type compactor struct {
	src  []byte
	pos  int
	dst  []byte
	html bool
}

func (c *compactor) space() {
	for c.pos < len(c.src) {
		switch c.src[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

func (c *compactor) value(depth int) error {
	if c.pos >= len(c.src) {
		return errSyntax
	}
	switch b := c.src[c.pos]; {
	case b == '{' || b == '[':
		if depth >= MaxDepth {
			return errSyntax
		}
		return c.container(depth + 1)
	case b == '"':
		return c.string()
	case b == '-' || b >= '0' && b <= '9':
		return c.number()
	case b == 't':
		return c.literal("true")
	case b == 'f':
		return c.literal("false")
	case b == 'n':
		return c.literal("null")
	}
	return errSyntax
}

func (c *compactor) literal(word string) error {
	if len(c.src)-c.pos < len(word) || string(c.src[c.pos:c.pos+len(word)]) != word {
		return errSyntax
	}
	c.dst = append(c.dst, word...)
	c.pos += len(word)
	return nil
}

// container copies an object or array.
func (c *compactor) container(depth int) error {
	open := c.src[c.pos]
	closing := byte(']')
	if open == '{' {
		closing = '}'
	}
	c.dst = append(c.dst, open)
	c.pos++
	c.space()
	if c.pos < len(c.src) && c.src[c.pos] == closing {
		c.dst = append(c.dst, closing)
		c.pos++
		return nil
	}
	for {
		c.space()
		if open == '{' {
			if c.pos >= len(c.src) || c.src[c.pos] != '"' {
				return errSyntax
			}
			if err := c.string(); err != nil {
				return err
			}
			c.space()
			if c.pos >= len(c.src) || c.src[c.pos] != ':' {
				return errSyntax
			}
			c.dst = append(c.dst, ':')
			c.pos++
			c.space()
		}
		if err := c.value(depth); err != nil {
			return err
		}
		c.space()
		if c.pos >= len(c.src) {
			return errSyntax
		}
		switch c.src[c.pos] {
		case ',':
			c.dst = append(c.dst, ',')
			c.pos++
		case closing:
			c.dst = append(c.dst, closing)
			c.pos++
			return nil
		default:
			return errSyntax
		}
	}
}

// string copies a string literal, escaping with html what json.Marshal
// escapes in raw messages; its bytes are otherwise kept (invalid UTF-8
// included, as encoding/json keeps them).
func (c *compactor) string() error {
	c.dst = append(c.dst, '"')
	src := c.src
	i := c.pos + 1
	start := i
	for {
		i = PlainRun(src, i, c.html)
		if i >= len(src) {
			return errSyntax
		}
		switch b := src[i]; {
		case b == '"':
			c.dst = append(c.dst, src[start:i]...)
			c.dst = append(c.dst, '"')
			c.pos = i + 1
			return nil
		case b < 0x20:
			return errSyntax
		case b == '\\':
			if i+1 >= len(src) {
				return errSyntax
			}
			switch src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(src)-i < 6 || !isHex(src[i+2]) || !isHex(src[i+3]) || !isHex(src[i+4]) || !isHex(src[i+5]) {
					return errSyntax
				}
				i += 6
			default:
				return errSyntax
			}
		case b == '<' || b == '>' || b == '&':
			c.dst = append(c.dst, src[start:i]...)
			c.dst = append(c.dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			i++
			start = i
		case c.html && b == 0xe2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xa8:
			c.dst = append(c.dst, src[start:i]...)
			c.dst = append(c.dst, '\\', 'u', '2', '0', '2', hexDigits[src[i+2]&0xf])
			i += 3
			start = i
		default: // other UTF-8 (kept as it is, invalid sequences too)
			i++
		}
	}
}

// number copies a number after checking the JSON grammar.
func (c *compactor) number() error {
	start := c.pos
	digits := func() int {
		n := 0
		for c.pos < len(c.src) && c.src[c.pos] >= '0' && c.src[c.pos] <= '9' {
			c.pos++
			n++
		}
		return n
	}
	if c.src[c.pos] == '-' {
		c.pos++
	}
	if c.pos < len(c.src) && c.src[c.pos] == '0' {
		c.pos++
	} else if digits() == 0 {
		return errSyntax
	}
	if c.pos < len(c.src) && c.src[c.pos] == '.' {
		c.pos++
		if digits() == 0 {
			return errSyntax
		}
	}
	if c.pos < len(c.src) && (c.src[c.pos] == 'e' || c.src[c.pos] == 'E') {
		c.pos++
		if c.pos < len(c.src) && (c.src[c.pos] == '+' || c.src[c.pos] == '-') {
			c.pos++
		}
		if digits() == 0 {
			return errSyntax
		}
	}
	c.dst = append(c.dst, c.src[start:c.pos]...)
	return nil
}

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}
