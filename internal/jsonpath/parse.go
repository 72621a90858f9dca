package jsonpath

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The cost bound of plain and query paths (see the package comment).
const (
	MaxPlainLength = 256
	MaxQueryLength = 512
	MaxSegments    = 32
	MaxDescents    = 1
	MaxFilters     = 4
	MaxFanout      = 16
	// maxFilterNodes caps the operators and operands of one filter, and
	// maxFilterNesting its parentheses.
	maxFilterNodes   = 32
	maxFilterNesting = 8
	// maxIndexDigits keeps indices far from overflow.
	maxIndexDigits = 9
)

type selKind uint8

const (
	selName selKind = iota
	selIndex
	selWildcard
	selSlice
	selFilter
)

type selector struct {
	kind  selKind
	name  string
	index int
	// slice bounds; hasStart/hasEnd say whether they were written
	start, end, step int
	hasStart, hasEnd bool
	filter           *expr
}

type segment struct {
	descent bool
	sels    []selector
}

// Path is a parsed JSONPath expression.
type Path struct {
	src  string
	segs []segment
}

// String is the expression as written.
func (p *Path) String() string { return p.src }

// SyntaxError says where and why a path does not parse or is outside the
// cost bound.
type SyntaxError struct {
	Pos int
	Msg string
}

func (e *SyntaxError) Error() string {
	if e.Pos < 0 {
		return e.Msg
	}
	return fmt.Sprintf("%s (at offset %d)", e.Msg, e.Pos)
}

// ParsePlain parses a plain path: $ then .name, ['name'], ["name"] and
// [N] steps only, at most MaxPlainLength characters.
func ParsePlain(s string) (*Path, error) {
	if len(s) > MaxPlainLength {
		return nil, &SyntaxError{Pos: -1, Msg: fmt.Sprintf("is longer than %d characters", MaxPlainLength)}
	}
	p := &parser{s: s, plain: true}
	return p.parse()
}

// Compile parses a query path and checks it against the cost bound.
func Compile(s string) (*Path, error) {
	if len(s) > MaxQueryLength {
		return nil, &SyntaxError{Pos: -1, Msg: fmt.Sprintf("is longer than %d characters", MaxQueryLength)}
	}
	p := &parser{s: s}
	return p.parse()
}

type parser struct {
	s       string
	i       int
	plain   bool
	descent int
	filters int
	fanout  int
	nodes   int // filter nodes of the current filter
}

func (p *parser) errf(format string, args ...any) error {
	return &SyntaxError{Pos: p.i, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) parse() (*Path, error) {
	if !strings.HasPrefix(p.s, "$") {
		p.i = 0
		return nil, p.errf("must start with $")
	}
	p.i = 1
	p.fanout = 1
	path := &Path{src: p.s}
	for p.i < len(p.s) {
		seg, err := p.segment()
		if err != nil {
			return nil, err
		}
		path.segs = append(path.segs, seg)
		if len(path.segs) > MaxSegments {
			return nil, p.errf("has more than %d segments", MaxSegments)
		}
	}
	return path, nil
}

func (p *parser) segment() (segment, error) {
	var seg segment
	switch {
	case strings.HasPrefix(p.s[p.i:], ".."):
		if p.plain {
			return seg, p.errf("recursive descent (..) is not allowed here: only child steps and array indices")
		}
		p.descent++
		if p.descent > MaxDescents {
			return seg, p.errf("has more than %d recursive descent (..)", MaxDescents)
		}
		seg.descent = true
		p.i += 2
		if p.i < len(p.s) && p.s[p.i] == '[' {
			sels, err := p.bracket()
			seg.sels = sels
			return seg, err
		}
		sel, err := p.dotSelector()
		seg.sels = []selector{sel}
		return seg, err
	case p.s[p.i] == '.':
		p.i++
		sel, err := p.dotSelector()
		seg.sels = []selector{sel}
		return seg, err
	case p.s[p.i] == '[':
		sels, err := p.bracket()
		seg.sels = sels
		return seg, err
	default:
		return seg, p.errf("unexpected %q: a step is .name, [...] or ..", p.s[p.i])
	}
}

// dotSelector reads the name or * after a dot.
func (p *parser) dotSelector() (selector, error) {
	if p.i < len(p.s) && p.s[p.i] == '*' {
		if p.plain {
			return selector{}, p.errf("a wildcard (*) is not allowed here: only child steps and array indices")
		}
		p.i++
		return selector{kind: selWildcard}, nil
	}
	name := p.name()
	if name == "" {
		return selector{}, p.errf("a member name must follow the dot")
	}
	return selector{kind: selName, name: name}, nil
}

// nameStop are the characters that end a dot-notation member name.
const nameStop = ".[]()'\", ?*:=!<>&|\t\n\r"

func (p *parser) name() string {
	start := p.i
	for p.i < len(p.s) {
		r, size := utf8.DecodeRuneInString(p.s[p.i:])
		if r < utf8.RuneSelf && strings.IndexByte(nameStop, byte(r)) >= 0 {
			break
		}
		p.i += size
	}
	return p.s[start:p.i]
}

func (p *parser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// bracket reads [selector, selector, ...].
func (p *parser) bracket() ([]selector, error) {
	p.i++ // [
	var sels []selector
	for {
		p.space()
		sel, err := p.bracketSelector()
		if err != nil {
			return nil, err
		}
		sels = append(sels, sel)
		p.space()
		if p.i >= len(p.s) {
			return nil, p.errf("unclosed [")
		}
		if p.s[p.i] == ']' {
			p.i++
			break
		}
		if p.s[p.i] != ',' {
			return nil, p.errf("unexpected %q in [...]", p.s[p.i])
		}
		if p.plain {
			return nil, p.errf("a union ([a,b]) is not allowed here: only child steps and array indices")
		}
		p.i++
	}
	if len(sels) > 1 {
		p.fanout *= len(sels)
		if p.fanout > MaxFanout {
			return nil, p.errf("its unions select more than %d branches", MaxFanout)
		}
	}
	return sels, nil
}

func (p *parser) bracketSelector() (selector, error) {
	if p.i >= len(p.s) {
		return selector{}, p.errf("unclosed [")
	}
	switch c := p.s[p.i]; {
	case c == '\'' || c == '"':
		name, err := p.quoted()
		return selector{kind: selName, name: name}, err
	case c == '*':
		if p.plain {
			return selector{}, p.errf("a wildcard (*) is not allowed here: only child steps and array indices")
		}
		p.i++
		return selector{kind: selWildcard}, nil
	case c == '?':
		if p.plain {
			return selector{}, p.errf("a filter ([?...]) is not allowed here: only child steps and array indices")
		}
		p.filters++
		if p.filters > MaxFilters {
			return selector{}, p.errf("has more than %d filters", MaxFilters)
		}
		p.i++
		p.space()
		p.nodes = 0
		e, err := p.orExpr(0)
		if err != nil {
			return selector{}, err
		}
		return selector{kind: selFilter, filter: e}, nil
	case c == '-' || c == ':' || (c >= '0' && c <= '9'):
		return p.indexOrSlice()
	default:
		return selector{}, p.errf("unexpected %q in [...]: expected a quoted name, an index, *, a slice or ?filter", c)
	}
}

// integer reads an optionally negative integer of at most maxIndexDigits.
func (p *parser) integer() (int, bool, error) {
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	if p.i == digits {
		p.i = start
		return 0, false, nil
	}
	if p.i-digits > maxIndexDigits {
		return 0, false, p.errf("index has more than %d digits", maxIndexDigits)
	}
	n, err := strconv.Atoi(p.s[start:p.i])
	if err != nil {
		return 0, false, p.errf("bad index")
	}
	return n, true, nil
}

func (p *parser) indexOrSlice() (selector, error) {
	n, ok, err := p.integer()
	if err != nil {
		return selector{}, err
	}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ':' {
		if p.plain {
			return selector{}, p.errf("a slice ([a:b]) is not allowed here: only child steps and array indices")
		}
		sel := selector{kind: selSlice, start: n, hasStart: ok, step: 1}
		p.i++
		p.space()
		if sel.end, sel.hasEnd, err = p.integer(); err != nil {
			return selector{}, err
		}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ':' {
			p.i++
			p.space()
			step, has, err := p.integer()
			if err != nil {
				return selector{}, err
			}
			if has {
				sel.step = step
			}
			if sel.step == 0 {
				return selector{}, p.errf("a slice step must not be 0")
			}
		}
		return sel, nil
	}
	if !ok {
		return selector{}, p.errf("expected an index")
	}
	if p.plain && n < 0 {
		return selector{}, p.errf("a negative index is not allowed here")
	}
	return selector{kind: selIndex, index: n}, nil
}

// quoted reads a '...' or "..." string with JSON-style escapes.
func (p *parser) quoted() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.errf("unterminated escape")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '\\', '\'', '"', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if p.i+4 > len(p.s) {
					return "", p.errf("bad \\u escape")
				}
				r, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
				if err != nil {
					return "", p.errf("bad \\u escape")
				}
				b.WriteRune(rune(r))
				p.i += 4
			default:
				return "", p.errf("unknown escape \\%c", e)
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", p.errf("unterminated string")
}
