package validate

import "strconv"

// pathNode is a field path kept as a chain and formatted only when a
// problem is reported, so decoding and checking a valid body builds no
// path strings.
type pathNode struct {
	parent *pathNode
	key    string
	idx    int
	isIdx  bool
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

func (p *pathNode) String() string {
	return string(p.appendTo(nil, 0))
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
	case !plainKey(p.key):
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
