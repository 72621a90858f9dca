package pefilter

import (
	"strconv"
)

// pointer is a JSON pointer kept as its tokens (a key, or an index when
// key is unset), formatted only when asked.
type pointer struct {
	toks []token
}

type token struct {
	key   string
	index int
	isKey bool
}

func (p *pointer) push(k string)   { p.toks = append(p.toks, token{key: k, isKey: true}) }
func (p *pointer) pushIndex(i int) { p.toks = append(p.toks, token{index: i}) }
func (p *pointer) pop()            { p.toks = p.toks[:len(p.toks)-1] }
func (p *pointer) String() string  { return string(p.appendTo(nil)) }
func (p *pointer) with(k string) string {
	return string(appendToken(p.appendTo(nil), k))
}

func (p *pointer) appendTo(b []byte) []byte {
	for _, t := range p.toks {
		if t.isKey {
			b = appendToken(b, t.key)
		} else {
			b = append(b, '/')
			b = strconv.AppendInt(b, int64(t.index), 10)
		}
	}
	return b
}

// appendToken appends "/" and k escaped as a JSON pointer token.
func appendToken(b []byte, k string) []byte {
	b = append(b, '/')
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '~':
			b = append(b, "~0"...)
		case '/':
			b = append(b, "~1"...)
		default:
			b = append(b, k[i])
		}
	}
	return b
}
