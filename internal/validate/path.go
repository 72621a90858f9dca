package validate

import (
	"strconv"

	"github.com/proofgate/proofgate/internal/backend"
)

// pathNode is a field path kept as a chain and formatted only when a
// problem is reported, so decoding and checking a valid body builds no
// path strings.
type pathNode struct {
	parent *pathNode
	key    string
	idx    int
	isIdx  bool
	// plain caches backend.PlainKey(key) once asked (0: not yet, 1: plain, 2: to
	// be quoted): the path is formatted for each problem under it, and
	// its key may be long.
	plain uint8
	// full, when set, is the whole path formatted (see staticPath): the
	// paths every rejected indy request names are copied, not rebuilt.
	full string
}

// staticPath returns the node of member key of parent with its formatted
// path kept, for the package's fixed paths (shared, so never changed).
func staticPath(parent *pathNode, key string) pathNode {
	n := pathNode{parent: parent, key: key}
	n.full = string(n.appendTo(nil, 0))
	return n
}

// appendTo appends the formatted path to b, whose path starts at b[start:]
// (what precedes it is another message): it is what key and index make of
// the chain, built in one buffer.
func (p *pathNode) appendTo(b []byte, start int) []byte {
	if p == nil {
		return b
	}
	if p.full != "" {
		return append(b, p.full...) // a path from the root: b[start:] is empty
	}
	b = p.parent.appendTo(b, start)
	switch {
	case p.isIdx:
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(p.idx), 10)
		return append(b, ']')
	case !backend.PlainKey(p.key):
		b = append(b, '[')
		b = strconv.AppendQuote(b, p.key)
		return append(b, ']')
	case len(b) > start:
		b = append(b, '.')
	}
	return append(b, p.key...)
}

// child is the path of member k of the object at p.
func (p *pathNode) child(k string) pathNode { return pathNode{parent: p, key: k} }

// elem is the path of element i of the array at p.
func (p *pathNode) elem(i int) pathNode { return pathNode{parent: p, idx: i, isIdx: true} }

// isPlain is backend.PlainKey(p.key), cached.
func (p *pathNode) isPlain() bool {
	if p.plain == 0 {
		p.plain = 2
		if backend.PlainKey(p.key) {
			p.plain = 1
		}
	}
	return p.plain == 1
}

// appendPath appends the path at p as appendTo formats it ("body" for
// none), shortened as appendPathString shortens it. Only the start and
// the end of a long path are formatted, so a problem under a long key
// costs at most a few hundred bytes of formatting, however long the key.
func appendPath(b []byte, p *pathNode) []byte {
	if p == nil {
		return append(b, "body"...)
	}
	start := len(b)
	// The nodes from p up to the root, or to one formatted whole (an
	// array, not an append: p stays where the caller has it).
	var nodes [maxDepth + 8]*pathNode
	depth := 0
	for n := p; n != nil; n = n.parent {
		if depth == len(nodes) {
			// Deeper than any path of a body: formatted whole.
			return appendPathString(b[:start], string(p.appendTo(nil, 0)))
		}
		nodes[depth] = n
		depth++
		if n.full != "" {
			break
		}
	}
	chain := nodes[:depth]
	limit := start + maxPathBytes + 1 // as far as tells a long path
	for i := len(chain) - 1; i >= 0 && len(b) < limit; i-- {
		b = chain[i].appendHead(b, i < len(chain)-1, limit-len(b))
	}
	if len(b)-start <= maxPathBytes {
		return b
	}
	b = b[:start+headCut(b[start:], pathHead)]
	b = append(b, ellipsis...)
	// The end, formatted from p up into tail, last byte first.
	var tail [pathTail]byte
	var scratch [4*pathTail + 16]byte // a node's end, quoted
	at := len(tail)
	for i := 0; i < len(chain) && at > 0; i++ {
		piece := chain[i].appendTail(scratch[:0], i < len(chain)-1, at)
		n := min(len(piece), at)
		at -= copy(tail[at-n:at], piece[len(piece)-n:])
	}
	return append(b, tail[tailCut(tail[:], at):]...)
}

// appendHead appends the node's part of the path (parent: a part precedes
// it), or a start of it at least r bytes long.
func (p *pathNode) appendHead(b []byte, parent bool, r int) []byte {
	switch {
	case p.full != "":
		return append(b, p.full[:min(len(p.full), r)]...)
	case p.isIdx:
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(p.idx), 10)
		return append(b, ']')
	case !p.isPlain():
		k := p.key
		if len(k) > r {
			// A start ending between characters quotes as the start of
			// the quoted key, already longer than r.
			k = k[:tailCut(k, r)]
		}
		b = append(b, '[')
		b = strconv.AppendQuote(b, k)
		return append(b, ']')
	}
	if parent {
		b = append(b, '.')
	}
	return append(b, p.key[:min(len(p.key), r)]...)
}

// appendTail appends the node's part of the path, or something ending in
// at least its last r bytes.
func (p *pathNode) appendTail(b []byte, parent bool, r int) []byte {
	switch {
	case p.full != "":
		return append(b, p.full[len(p.full)-min(len(p.full), r):]...)
	case p.isIdx:
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(p.idx), 10)
		return append(b, ']')
	case !p.isPlain():
		k := p.key
		if len(k) > r {
			// An end starting at a character quotes as the end of the
			// quoted key, already longer than r.
			k = k[headCut(k, len(k)-r):]
		}
		b = append(b, '[')
		b = strconv.AppendQuote(b, k)
		return append(b, ']')
	}
	if len(p.key) >= r {
		return append(b, p.key[len(p.key)-r:]...)
	}
	if parent {
		b = append(b, '.')
	}
	return append(b, p.key...)
}
