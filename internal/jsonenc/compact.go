package jsonenc

import "github.com/proofgate/proofgate/internal/jsonscan"

// errSyntax is AppendCompact's answer to a value that is not JSON; the
// caller reports which.
var errSyntax = jsonscan.ErrSyntax

// MaxDepth is encoding/json's nesting limit.
const MaxDepth = jsonscan.MaxDepth

// AppendCompact appends src as encoding/json compacts a json.RawMessage
// it encodes (json.Marshal with html, an Encoder without HTML escaping
// without): whitespace outside strings removed, and with html '<', '>',
// '&', U+2028 and U+2029 escaped as in AppendString (U+2028 and U+2029
// are kept without), after checking that src is exactly one JSON value.
// The checking is internal/jsonscan's, which unlike encoding/json's
// scanner walks strings, where nearly all of a document's bytes are,
// eight bytes at a time.
func AppendCompact(b, src []byte, html bool) ([]byte, error) {
	c := compactor{s: jsonscan.Scanner{Src: src}, dst: b, html: html}
	c.s.Space()
	c.kept = c.s.Pos
	if err := c.value(0); err != nil {
		return b, err
	}
	c.dst = append(c.dst, src[c.kept:c.s.Pos]...)
	if err := c.s.End(); err != nil {
		return b, err
	}
	return c.dst, nil
}

// compactor copies src in runs: the bytes from kept on are owed to dst,
// and are appended only where whitespace is dropped or a string's HTML
// characters are escaped. A document that is already compact is thus
// checked token by token but copied once.
type compactor struct {
	s    jsonscan.Scanner
	dst  []byte
	kept int
	html bool
}

// space drops the whitespace at s.Pos, if any.
func (c *compactor) space() {
	if s := &c.s; s.Pos < len(s.Src) && s.Src[s.Pos] <= ' ' {
		c.drop()
	}
}

// drop is kept out of space so that space stays small enough to inline.
//
//go:noinline
func (c *compactor) drop() {
	c.dst = append(c.dst, c.s.Src[c.kept:c.s.Pos]...)
	c.s.Space()
	c.kept = c.s.Pos
}

// value checks the value at s.Pos, inside depth objects and arrays.
func (c *compactor) value(depth int) error {
	s := &c.s
	if s.Pos >= len(s.Src) {
		return errSyntax
	}
	switch s.Src[s.Pos] {
	case '{', '[':
		if depth >= MaxDepth {
			return errSyntax
		}
		return c.container(depth + 1)
	case '"':
		return c.string()
	case 't':
		return s.Literal("true")
	case 'f':
		return s.Literal("false")
	case 'n':
		return s.Literal("null")
	}
	return s.Number() // or no value at all
}

// container checks an object or array, which is at nesting level depth.
// The structure is walked here rather than with jsonscan's Enter, Colon
// and Next, since the whitespace they pass over is what is dropped.
func (c *compactor) container(depth int) error {
	s := &c.s
	closing := s.Src[s.Pos] + 2 // ASCII: '{'+2 is '}', '['+2 is ']'
	s.Pos++
	c.space()
	if s.Pos < len(s.Src) && s.Src[s.Pos] == closing {
		s.Pos++
		return nil
	}
	for {
		if closing == '}' {
			if err := c.string(); err != nil {
				return err
			}
			c.space()
			if s.Pos >= len(s.Src) || s.Src[s.Pos] != ':' {
				return errSyntax
			}
			s.Pos++
			c.space()
		}
		if err := c.value(depth); err != nil {
			return err
		}
		c.space()
		if s.Pos >= len(s.Src) {
			return errSyntax
		}
		switch s.Src[s.Pos] {
		case ',':
			s.Pos++
			c.space()
		case closing:
			s.Pos++
			return nil
		default:
			return errSyntax
		}
	}
}

// string checks a string literal, escaping with html what json.Marshal
// escapes in raw messages; its bytes are otherwise kept (invalid UTF-8
// included, as encoding/json keeps them).
func (c *compactor) string() error {
	s := &c.s
	rewrite, _, err := s.String(c.html)
	if err != nil {
		return err
	}
	if rewrite < s.Pos {
		c.dst = append(c.dst, s.Src[c.kept:rewrite]...)
		c.dst = appendHTMLEscaped(c.dst, s.Src[rewrite:s.Pos])
		c.kept = s.Pos
	}
	return nil
}

// appendHTMLEscaped appends str, the checked rest of a string literal,
// with '<', '>', '&', U+2028 and U+2029 escaped as json.Marshal escapes
// them in a json.RawMessage. Backslash escapes need no care: no byte of
// one is among those.
func appendHTMLEscaped(b, str []byte) []byte {
	start := 0
	for i := 0; ; {
		i = jsonscan.PlainRun(str, i, true)
		if i >= len(str) {
			break
		}
		switch c := str[i]; {
		case c == '<' || c == '>' || c == '&':
			b = append(b, str[start:i]...)
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			i++
			start = i
		case c == 0xe2 && i+2 < len(str) && str[i+1] == 0x80 && str[i+2]&^1 == 0xa8:
			b = append(b, str[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[str[i+2]&0xf])
			i += 3
			start = i
		default: // '"', '\\' and other UTF-8, kept as they are
			i++
		}
	}
	return append(b, str[start:]...)
}
