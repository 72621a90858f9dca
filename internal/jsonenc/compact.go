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
// eight bytes at a time; each token it delimits is copied whole.
func AppendCompact(b, src []byte, html bool) ([]byte, error) {
	c := compactor{s: jsonscan.Scanner{Src: src}, dst: b, html: html}
	c.s.Space()
	if err := c.value(0); err != nil {
		return b, err
	}
	if err := c.s.End(); err != nil {
		return b, err
	}
	return c.dst, nil
}

type compactor struct {
	s    jsonscan.Scanner
	dst  []byte
	html bool
}

// value copies the value at c.s.Pos, inside depth objects and arrays.
func (c *compactor) value(depth int) error {
	s := &c.s
	if s.Pos < len(s.Src) {
		switch s.Src[s.Pos] {
		case '{', '[':
			if depth >= MaxDepth {
				return errSyntax
			}
			return c.container(depth + 1)
		case '"':
			return c.string()
		}
	}
	// A number or a literal is copied as it is; anything else is no value.
	start := s.Pos
	if err := s.SkipValue(depth); err != nil {
		return err
	}
	c.dst = append(c.dst, s.Src[start:s.Pos]...)
	return nil
}

// container copies an object or array, which is at nesting level depth.
func (c *compactor) container(depth int) error {
	s := &c.s
	c.dst = append(c.dst, s.Src[s.Pos])
	closing, empty := s.Enter()
	if empty {
		c.dst = append(c.dst, closing)
		return nil
	}
	for {
		if closing == '}' {
			if err := c.string(); err != nil {
				return err
			}
			if err := s.Colon(); err != nil {
				return err
			}
			c.dst = append(c.dst, ':')
		}
		if err := c.value(depth); err != nil {
			return err
		}
		more, err := s.Next(closing)
		if err != nil {
			return err
		}
		if !more {
			c.dst = append(c.dst, closing)
			return nil
		}
		c.dst = append(c.dst, ',')
	}
}

// string copies a string literal, escaping with html what json.Marshal
// escapes in raw messages; its bytes are otherwise kept (invalid UTF-8
// included, as encoding/json keeps them).
func (c *compactor) string() error {
	s := &c.s
	start := s.Pos
	rewrite, _, err := s.String(c.html)
	if err != nil {
		return err
	}
	c.dst = append(c.dst, s.Src[start:rewrite]...)
	if rewrite < s.Pos {
		c.dst = appendHTMLEscaped(c.dst, s.Src[rewrite:s.Pos])
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
		i = PlainRun(str, i, true)
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
