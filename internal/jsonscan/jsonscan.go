// Package jsonscan checks JSON exactly as encoding/json's scanner does —
// the same grammar, whitespace, string rules (escapes, no control
// characters, UTF-8 left unchecked) and nesting limit — for the
// hand-written readers and writers on proofgate's hot paths: jsonpick,
// which picks members out of an agent's answer, and jsonenc's
// AppendCompact, which copies a json.RawMessage as encoding/json writes
// it. Both are held to encoding/json by fuzzing; the grammar lives here
// once so that they cannot drift apart.
//
// A Scanner builds nothing: it moves over the bytes and leaves its
// position at the end of each token, and its users slice out what they
// need. Strings, where nearly all of a document's bytes are, are walked
// eight bytes at a time (PlainRun).
//
// internal/validate has the project's other JSON parser. It builds every
// value of a client's request into a tree, with byte offsets and a
// message for each kind of fault; this package reports only that a
// document is not JSON, which is all its users need and keeps it lean.
package jsonscan

import "errors"

// MaxDepth is encoding/json's nesting limit: a document with more
// objects and arrays inside one another is not valid JSON to it.
const MaxDepth = 10000

// ErrSyntax is every Scanner method's answer to bytes that are not the
// JSON expected there.
var ErrSyntax = errors.New("invalid JSON")

// Scanner checks JSON in Src from Pos on. Each method checks what it is
// named for, starting at Pos, and moves Pos past it; only Space, End,
// Enter, Colon and Next pass whitespace around what they check (SkipValue
// passes what is inside the value). After an error Pos means nothing, and
// the scan is over. Users read Src[Pos] to see what comes next, and
// Src[start:Pos] is the token just passed.
type Scanner struct {
	Src []byte
	Pos int
}

// Space moves past whitespace (space, tab, newline, carriage return).
func (s *Scanner) Space() {
	src, i := s.Src, s.Pos
	// Every byte of whitespace is at most ' ', and no token starts with
	// one: one comparison answers for the byte after a token.
	for i < len(src) && src[i] <= ' ' && (src[i] == ' ' || src[i] == '\n' || src[i] == '\t' || src[i] == '\r') {
		i++
	}
	s.Pos = i
}

// End checks that only whitespace is left.
func (s *Scanner) End() error {
	s.Space()
	if s.Pos != len(s.Src) {
		return ErrSyntax
	}
	return nil
}

// Literal moves past word (true, false or null).
func (s *Scanner) Literal(word string) error {
	if len(s.Src)-s.Pos < len(word) || string(s.Src[s.Pos:s.Pos+len(word)]) != word {
		return ErrSyntax
	}
	s.Pos += len(word)
	return nil
}

// Number moves past a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *Scanner) Number() error {
	src, i := s.Src, s.Pos
	if i < len(src) && src[i] == '-' {
		i++
	}
	switch {
	case i >= len(src):
		return ErrSyntax
	case src[i] == '0':
		i++
	case '1' <= src[i] && src[i] <= '9':
		i = digits(src, i+1)
	default:
		return ErrSyntax
	}
	if i < len(src) && src[i] == '.' {
		j := digits(src, i+1)
		if j == i+1 {
			return ErrSyntax
		}
		i = j
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		j := digits(src, i)
		if j == i {
			return ErrSyntax
		}
		i = j
	}
	s.Pos = i
	return nil
}

// digits returns the index of the first byte at or after i that is not
// a decimal digit.
func digits(src []byte, i int) int {
	for i < len(src) && '0' <= src[i] && src[i] <= '9' {
		i++
	}
	return i
}

// String moves past a string literal, quotes included. escaped reports
// whether it holds a backslash escape (its text then differs from its
// bytes). rewrite serves writers that escape HTML as json.Marshal does:
// with html, it is the index of the string's first '<', '>', '&', U+2028
// or U+2029, which the writer must escape from there on; without html, or
// when there is none, it is the string's end (the new Pos). Finding it
// here spares the writer a second walk over strings that need no
// escaping, which are nearly all. Like encoding/json, String does not
// check UTF-8.
func (s *Scanner) String(html bool) (rewrite int, escaped bool, err error) {
	src, i := s.Src, s.Pos
	if i >= len(src) || src[i] != '"' {
		return 0, false, ErrSyntax
	}
	rewrite = -1
	i++
	for {
		i = PlainRun(src, i, html)
		if i >= len(src) {
			return 0, false, ErrSyntax
		}
		switch c := src[i]; {
		case c == '"':
			i++
			s.Pos = i
			if rewrite < 0 {
				rewrite = i
			}
			return rewrite, escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(src) {
				return 0, false, ErrSyntax
			}
			switch src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(src)-i < 6 || !isHex(src[i+2]) || !isHex(src[i+3]) || !isHex(src[i+4]) || !isHex(src[i+5]) {
					return 0, false, ErrSyntax
				}
				i += 6
			default:
				return 0, false, ErrSyntax
			}
		case c < 0x20:
			return 0, false, ErrSyntax
		case c == '<' || c == '>' || c == '&': // PlainRun stops here only with html
			rewrite, html = i, false // the writer takes over from here
			i++
		case html && c == 0xe2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xa8:
			rewrite, html = i, false
			i += 3
		default: // a byte of a multi-byte sequence, not checked (as encoding/json)
			i++
		}
	}
}

func isHex(b byte) bool {
	return '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F'
}

// Enter moves past the '{' or '[' at Pos and the whitespace after it,
// returning the byte that closes the container. An empty container is
// passed whole, and empty reports it.
func (s *Scanner) Enter() (closing byte, empty bool) {
	closing = s.Src[s.Pos] + 2 // ASCII: '{'+2 is '}', '['+2 is ']'
	s.Pos++
	s.Space()
	if s.Pos < len(s.Src) && s.Src[s.Pos] == closing {
		s.Pos++
		return closing, true
	}
	return closing, false
}

// Colon moves past the ':' after an object's key and the whitespace on
// both sides of it.
func (s *Scanner) Colon() error {
	s.Space()
	if s.Pos >= len(s.Src) || s.Src[s.Pos] != ':' {
		return ErrSyntax
	}
	s.Pos++
	s.Space()
	return nil
}

// Next moves past what follows an element or member: whitespace, then
// a ',' and the whitespace after it (more is true: another one follows),
// or the container's closing byte (more is false: the container ends).
func (s *Scanner) Next(closing byte) (more bool, err error) {
	s.Space()
	if s.Pos >= len(s.Src) {
		return false, ErrSyntax
	}
	switch s.Src[s.Pos] {
	case ',':
		s.Pos++
		s.Space()
		return true, nil
	case closing:
		s.Pos++
		return false, nil
	}
	return false, ErrSyntax
}

// SkipValue moves past one value of any kind. depth is the number of
// objects and arrays the value is inside, for the nesting limit.
func (s *Scanner) SkipValue(depth int) error {
	if s.Pos >= len(s.Src) {
		return ErrSyntax
	}
	switch c := s.Src[s.Pos]; c {
	case '{', '[':
		if depth >= MaxDepth {
			return ErrSyntax
		}
		return s.skipContainer(depth + 1)
	case '"':
		_, _, err := s.String(false)
		return err
	case 't':
		return s.Literal("true")
	case 'f':
		return s.Literal("false")
	case 'n':
		return s.Literal("null")
	default:
		if c == '-' || '0' <= c && c <= '9' {
			return s.Number()
		}
	}
	return ErrSyntax
}

// skipContainer moves past the object or array at Pos, which is at
// nesting level depth.
func (s *Scanner) skipContainer(depth int) error {
	closing, empty := s.Enter()
	if empty {
		return nil
	}
	for {
		if closing == '}' {
			if _, _, err := s.String(false); err != nil {
				return err
			}
			if err := s.Colon(); err != nil {
				return err
			}
		}
		if err := s.SkipValue(depth); err != nil {
			return err
		}
		if more, err := s.Next(closing); !more {
			return err
		}
	}
}
