package validate

import (
	"maps"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxSchemaValues is about the most values of an instance that one call
// of the library validates. The library builds every error of a call
// before any is seen, each with its own copy of its instance location:
// an array of many bad elements, or errors nested deep (from_nested in
// from_nested), costs hundreds of times its bytes, and the collector
// keeps only the first maxProblems anyway.
const maxSchemaValues = 256

// checkSchema validates inst, found at base, against s and reports its
// problems as schemaProblems does, a part at a time: when inst has more
// than maxSchemaValues values, the elements of its arrays past them are
// left out of the call and validated in later calls, a run of them at a
// time against their array's schema, and none once c is full (problems
// are only counted then, and the ones of the parts not validated are not
// counted). An array is split only where its schema allows it (its
// elements checked each alone: items, minItems at most 1), under schemas
// whose members' and elements' schemas are known (no anyOf, oneOf…);
// elsewhere a call takes all that is there.
func checkSchema(s *jsonschema.Schema, inst any, base *pathNode, rename map[string]string, c *collector) {
	if c.full() {
		return
	}
	if countValues(inst, maxSchemaValues+1) <= maxSchemaValues {
		if err := s.Validate(inst); err != nil {
			schemaProblems(err, base, inst, rename, c)
		}
		return
	}
	sp := splitter{c: c, rename: rename, left: maxSchemaValues}
	part, _ := sp.prune(s, inst, base, 0)
	if err := s.Validate(part); err != nil {
		schemaProblems(err, base, part, rename, c)
	}
	sp.rename = nil
	for i := 0; i < len(sp.queue) && !c.full(); i++ {
		r := sp.queue[i]
		sp.left = maxSchemaValues
		sp.baseHeap, sp.baseKept = r.path, true
		part, _ := sp.prune(r.schema, r.elems, nil, r.start)
		if err := r.schema.Validate(part); err != nil {
			schemaProblemsAt(err, r.path, part, r.start, nil, c)
		}
	}
}

// countValues counts the values of v, up to limit.
func countValues(v any, limit int) int {
	n := 1
	switch t := v.(type) {
	case map[string]any:
		for _, e := range t {
			if n >= limit {
				break
			}
			n += countValues(e, limit-n)
		}
	case []any:
		for _, e := range t {
			if n >= limit {
				break
			}
			n += countValues(e, limit-n)
		}
	}
	return n
}

// splitter takes the parts of an instance that one call validates.
type splitter struct {
	c      *collector
	left   int // values the call may still take
	queue  []run
	rename map[string]string
	// The path of the value walked: the walk's root (copied to the heap
	// when first needed) and a frame per level below it.
	baseHeap *pathNode
	baseKept bool
	stack    []frame
}

// run is elements of an array left for a later call: elems, from element
// start on, of the array at path whose schema is schema.
type run struct {
	schema *jsonschema.Schema
	elems  []any
	start  int
	path   *pathNode
}

// frame is a level of the path walked, made a pathNode on the heap only
// when a run below it is left for later, once for all the runs below it.
type frame struct {
	key   string
	idx   int
	isIdx bool
	heap  *pathNode
}

func (sp *splitter) push(f frame) { sp.stack = append(sp.stack, f) }
func (sp *splitter) pop()         { sp.stack = sp.stack[:len(sp.stack)-1] }

// persist is the path walked, from base, on the heap.
func (sp *splitter) persist(base *pathNode) *pathNode {
	if !sp.baseKept {
		sp.baseHeap, sp.baseKept = clonePath(base), true
	}
	p := sp.baseHeap
	for i := range sp.stack {
		f := &sp.stack[i]
		if f.heap == nil {
			f.heap = &pathNode{parent: p, key: f.key, idx: f.idx, isIdx: f.isIdx}
		}
		p = f.heap
	}
	return p
}

// clonePath copies the chain at p to the heap, strings too, so that the
// caller's nodes may stay on its stack (copying a node's fields would let
// escape analysis think its parent escapes).
func clonePath(p *pathNode) *pathNode {
	if p == nil {
		return nil
	}
	n := &pathNode{key: strings.Clone(p.key), idx: p.idx, isIdx: p.isIdx, plain: p.plain, full: strings.Clone(p.full)}
	if p.full == "" {
		n.parent = clonePath(p.parent)
	}
	return n
}

// prune returns what of v (whose schema is s, at the path walked from
// base) the call validates: v itself, or a copy without the runs of elements left
// for later (true). offset is the index of v's first element in its
// array, for a run.
func (sp *splitter) prune(s *jsonschema.Schema, v any, base *pathNode, offset int) (any, bool) {
	sp.left--
	s = resolved(s)
	if s != nil && s.Bool != nil {
		return v, false // true or false: the library looks no further
	}
	switch t := v.(type) {
	case map[string]any:
		if !simpleSchema(s) {
			sp.left -= countValues(v, sp.left+1) - 1
			return v, false
		}
		var out map[string]any
		for _, k := range slices.Sorted(maps.Keys(t)) {
			cs, looked := memberSchema(s, k)
			if !looked {
				continue
			}
			tok := k
			if len(sp.stack) == 0 && sp.rename[k] != "" {
				tok = sp.rename[k]
			}
			sp.push(frame{key: tok})
			e, changed := sp.prune(cs, t[k], base, 0)
			sp.pop()
			if changed {
				if out == nil {
					out = maps.Clone(t)
				}
				out[k] = e
			}
		}
		if out != nil {
			return out, true
		}
	case []any:
		items, splittable := elemSchema(s)
		if items == nil {
			sp.left -= countValues(v, sp.left+1) - 1
			return v, false
		}
		if splittable && len(t) > 1 {
			// Elements the library would only look at one by one, without
			// reaching into them: looked at here, cheaper (the library
			// allocates for each value it validates).
			switch items = resolved(items); {
			case items.Bool != nil && *items.Bool:
				return t[:1], true
			case plainString(items):
				sp.strings(t, base, offset)
				return placeholder, true
			}
		}
		var out []any
		for i, e := range t {
			if splittable && sp.left <= 0 && i > 0 {
				sp.queue = append(sp.queue, run{schema: s, elems: t[i:], start: offset + i, path: sp.persist(base)})
				if out == nil {
					out = t
				}
				return out[:i], true
			}
			sp.push(frame{idx: offset + i, isIdx: true})
			pe, changed := sp.prune(items, e, base, 0)
			sp.pop()
			if changed {
				if out == nil {
					out = slices.Clone(t)
				}
				out[i] = pe
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// placeholder is an array of strings for the library to validate, in
// place of one whose elements are checked by strings.
var placeholder = []any{""}

// strings checks that the elements of t, an array at the path walked from
// base whose items schema is plainString, are strings, as the library
// would: "must be a string".
func (sp *splitter) strings(t []any, base *pathNode, offset int) {
	var at *pathNode
	for i, e := range t {
		if _, ok := e.(string); ok {
			continue
		}
		if sp.c.full() {
			sp.c.drop()
			continue
		}
		if at == nil {
			at = sp.persist(base)
		}
		q := at.elem(offset + i)
		sp.c.at(&q, "must be a string")
	}
}

var stringType = func() (t jsonschema.Types) {
	t.Add("string")
	return t
}()

// plainString tells whether s is {"type": "string"} and nothing more a
// string is checked against.
func plainString(s *jsonschema.Schema) bool {
	return s.Types != nil && *s.Types == stringType && s.Bool == nil &&
		s.Ref == nil && s.RecursiveRef == nil && s.DynamicRef == nil && s.Enum == nil && s.Const == nil &&
		s.Not == nil && s.AllOf == nil && s.AnyOf == nil && s.OneOf == nil && s.If == nil && s.Format == nil &&
		s.MinLength == nil && s.MaxLength == nil && s.Pattern == nil && s.ContentEncoding == nil &&
		s.ContentMediaType == nil && s.Extensions == nil
}

// resolved follows $ref: before draft 2019 it replaces the whole schema.
func resolved(s *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; i < 64 && s != nil && s.Ref != nil && s.DraftVersion < 2019; i++ {
		s = s.Ref
	}
	return s
}

// simpleSchema tells whether what applies to the members and elements of
// a value of s is s's own properties and items, and nothing else.
func simpleSchema(s *jsonschema.Schema) bool {
	if s == nil || s.Ref != nil || s.RecursiveRef != nil || s.DynamicRef != nil ||
		s.Not != nil || s.AllOf != nil || s.AnyOf != nil || s.OneOf != nil || s.If != nil ||
		s.PropertyNames != nil || s.DependentSchemas != nil || s.UnevaluatedProperties != nil ||
		s.UnevaluatedItems != nil || s.Contains != nil || s.Extensions != nil {
		return false
	}
	for _, d := range s.Dependencies {
		if _, isSchema := d.(*jsonschema.Schema); isSchema {
			return false
		}
	}
	return true
}

// memberSchema is the schema of member k of an object of s (simple), and
// whether the library looks at the member's value at all.
func memberSchema(s *jsonschema.Schema, k string) (*jsonschema.Schema, bool) {
	var found *jsonschema.Schema
	n := 0
	if p, ok := s.Properties[k]; ok {
		found, n = p, 1
	}
	for re, p := range s.PatternProperties {
		if re.MatchString(k) {
			found, n = p, n+1
		}
	}
	if n == 0 {
		if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			return ap, true
		}
		return nil, false // true, false or none: the value is not validated
	}
	if n > 1 {
		return nil, true // more than one: not known
	}
	return found, true
}

// elemSchema is the schema of the elements of an array of s, when all
// have the one (nil when not known), and whether the array may be split:
// nothing of s looks at its elements together.
func elemSchema(s *jsonschema.Schema) (*jsonschema.Schema, bool) {
	if !simpleSchema(s) || s.PrefixItems != nil {
		return nil, false
	}
	var items *jsonschema.Schema
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		items = it
	case nil:
		items = s.Items2020
	}
	if items == nil {
		return nil, false
	}
	return items, (s.MinItems == nil || *s.MinItems <= 1) && s.MaxItems == nil && !s.UniqueItems &&
		s.MinContains == nil && s.MaxContains == nil
}
