package validate

import (
	"encoding/json"
	"sync"
)

// nodeKind is the JSON type of a node.
type nodeKind uint8

const (
	kindNull nodeKind = iota
	kindBool
	kindNumber
	kindString
	kindObject
	kindArray
)

// node is one JSON value of a parsed body. Values are stored in document
// order, each container followed by its members or elements, so a body is
// one slice (reused between requests) instead of a tree of maps, slices
// and boxed strings.
type node struct {
	// key is the value's key when it is a member of an object.
	key string
	// str is a string's value or a number's literal text.
	str string
	// end is the index just past this value and everything in it: the
	// next member or element of the enclosing container.
	end int32
	// n counts an object's distinct keys or an array's elements.
	n    int32
	kind nodeKind
	b    bool // a boolean's value
	// shadowed marks an object member followed by another of the same
	// key: as with encoding/json, the last one counts.
	shadowed bool
}

// document is a parsed body: nodes[0] is its top-level object.
type document struct {
	nodes []node
	// probes counts the members and elements that lookups compared (get,
	// the checks for repeats): the tests bound it, so that no check
	// searches a client's array or object once per element of another.
	probes int
}

func (d *document) root() value { return value{d: d, i: 0} }

// value is one node of a document, or an absent one (a missing member).
type value struct {
	d *document
	i int32 // -1: absent
}

var absent = value{i: -1}

func (v value) node() *node { return &v.d.nodes[v.i] }

// present reports whether the value was sent, null included.
func (v value) present() bool { return v.i >= 0 }

// missing reports what a lookup in a decoded map yielding nil did: the
// value is absent or null.
func (v value) missing() bool { return v.i < 0 || v.node().kind == kindNull }

func (v value) is(k nodeKind) bool { return v.i >= 0 && v.node().kind == k }

// str returns a string value.
func (v value) str() (string, bool) {
	if !v.is(kindString) {
		return "", false
	}
	return v.node().str, true
}

// boolean returns a boolean value.
func (v value) boolean() (bool, bool) {
	if !v.is(kindBool) {
		return false, false
	}
	return v.node().b, true
}

// len is the number of distinct keys of an object or elements of an array.
func (v value) len() int {
	if v.i < 0 {
		return 0
	}
	return int(v.node().n)
}

// get returns the member k of an object (the last of duplicates), or
// absent when v is not an object or has no such member.
func (v value) get(k string) value {
	if !v.is(kindObject) {
		return absent
	}
	nodes := v.d.nodes
	probes := 0
	for i, end := v.i+1, nodes[v.i].end; i < end; i = nodes[i].end {
		probes++
		if nodes[i].key == k && !nodes[i].shadowed {
			v.d.probes += probes
			return value{d: v.d, i: i}
		}
	}
	v.d.probes += probes
	return absent
}

// members iterates over an object's members, each key once (the last of
// duplicates), in document order:
//
//	for it := v.members(); it.next(); { it.key(), it.value() }
func (v value) members() iterator {
	if !v.is(kindObject) {
		return iterator{}
	}
	return iterator{d: v.d, pos: v.i + 1, end: v.d.nodes[v.i].end, cur: -1, idx: -1, skipShadowed: true}
}

// elems iterates over an array's elements; iterator.index counts them.
func (v value) elems() iterator {
	if !v.is(kindArray) {
		return iterator{}
	}
	return iterator{d: v.d, pos: v.i + 1, end: v.d.nodes[v.i].end, cur: -1, idx: -1}
}

// iterator walks the members of an object or the elements of an array.
type iterator struct {
	d            *document
	pos, end     int32
	cur          int32
	idx          int
	skipShadowed bool
}

func (it *iterator) next() bool {
	for it.pos < it.end {
		i := it.pos
		it.pos = it.d.nodes[i].end
		if it.skipShadowed && it.d.nodes[i].shadowed {
			continue
		}
		it.cur = i
		it.idx++
		return true
	}
	return false
}

func (it *iterator) key() string  { return it.d.nodes[it.cur].key }
func (it *iterator) value() value { return value{d: it.d, i: it.cur} }
func (it *iterator) index() int   { return it.idx }

// any builds the generic tree encoding/json (with UseNumber) makes of v:
// map[string]any, []any, string, json.Number, bool or nil; nil for absent.
func (v value) any() any {
	if v.i < 0 {
		return nil
	}
	n := v.node()
	switch n.kind {
	case kindBool:
		return n.b
	case kindNumber:
		return json.Number(n.str)
	case kindString:
		return n.str
	case kindObject:
		m := make(map[string]any, n.n)
		for it := v.members(); it.next(); {
			m[it.key()] = it.value().any()
		}
		return m
	case kindArray:
		a := make([]any, 0, n.n)
		for it := v.elems(); it.next(); {
			a = append(a, it.value().any())
		}
		return a
	}
	return nil
}

// maxPooledNodes bounds the documents kept for reuse (48 KiB of nodes:
// a typical body has tens, a large presentation definition hundreds), so
// one large body does not pin its memory for good.
const maxPooledNodes = 1024

// maxPooledProblems and maxPooledProblemText bound the problem lists kept
// for reuse.
const (
	maxPooledProblems    = 256
	maxPooledProblemText = 16 << 10
)

// parsers keeps parsers (and their documents) between requests.
var parsers = sync.Pool{New: func() any { return new(parser) }}

func getParser() *parser { return parsers.Get().(*parser) }

// putParser drops what p refers to (the body and its strings) and keeps it
// for reuse if its document is of a common size.
func putParser(p *parser) {
	if cap(p.doc.nodes) > maxPooledNodes {
		return
	}
	clear(p.doc.nodes)
	p.doc.nodes, p.doc.probes = p.doc.nodes[:0], 0
	p.buf, p.src, p.c = nil, "", nil
	clear(p.path[:p.deepest+1])
	p.problems.reset()
	p.deepest = 0
	parsers.Put(p)
}
