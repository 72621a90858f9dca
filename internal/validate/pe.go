package validate

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/google/uuid"
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/jsonpath"
	"github.com/proofgate/proofgate/internal/pefilter"
)

const pdRoot = "presentationDefinition"

// jsonpathBound explains the cost bound of field paths (internal/jsonpath).
const jsonpathBound = " (field paths may use at most one recursive descent (..), 4 filters of @-relative comparisons, unions of at most 16 branches in all, 32 segments and 512 characters)"

// definition normalizes presentationDefinition, in any of its three
// spellings, to one DIF presentation definition object and checks it. It
// returns the definition's JSON and id, or nothing when a problem was
// reported.
//
// Spellings: the interface's listed form [{input_descriptors: [...]}]
// (exactly one element), a plain definition object, and the interface
// sample's {id, inputDescriptors: [...]}. Problems are reported in the
// caller's own spelling (presentationDefinition[0]..., ...inputDescriptors[2]...).
func (s *peSchemas) definition(raw any, strict bool, c *collector) (json.RawMessage, string, spelling) {
	prefix := pdRoot
	var def map[string]any
	switch t := raw.(type) {
	case nil:
		c.add(pdRoot, "is required for requestType presentationExchange: a DIF presentation definition")
		return nil, "", spelling{}
	case []any:
		if len(t) != 1 {
			if len(t) == 0 {
				c.add(pdRoot, "must not be empty for requestType presentationExchange")
			} else {
				c.add(pdRoot, "the list form must hold exactly one presentation definition")
			}
			return nil, "", spelling{}
		}
		prefix = index(pdRoot, 0)
		m, ok := t[0].(map[string]any)
		if !ok {
			c.add(prefix, "must be a presentation definition object")
			return nil, "", spelling{}
		}
		def = m
	case map[string]any:
		def = t
	default:
		c.add(pdRoot, "must be a presentation definition object (or a list holding one)")
		return nil, "", spelling{}
	}
	if len(def) == 0 {
		c.add(prefix, "must not be empty for requestType presentationExchange")
		return nil, "", spelling{}
	}

	if _, wrapped := def["presentation_definition"]; wrapped {
		c.add(key(prefix, "presentation_definition"), `send the definition itself as presentationDefinition, without the {"presentation_definition": ...} wrapper`)
		return nil, "", spelling{}
	}

	norm := make(map[string]any, len(def)+1)
	for k, v := range def {
		norm[k] = v
	}
	idsKey := "input_descriptors"
	if camel, ok := def["inputDescriptors"]; ok {
		if _, both := def["input_descriptors"]; both {
			c.add(prefix, "has both input_descriptors and inputDescriptors: send one")
			return nil, "", spelling{}
		}
		idsKey = "inputDescriptors"
		delete(norm, "inputDescriptors")
		norm["input_descriptors"] = camel
	}
	switch id := norm["id"].(type) {
	case nil:
		norm["id"] = uuid.NewString()
	case string:
		if strings.TrimSpace(id) == "" {
			c.add(key(prefix, "id"), "must not be empty (omit it to get a generated UUID)")
		}
	}

	before := c.count()
	pc := peCheck{s: s, strict: strict, prefix: prefix, idsKey: idsKey, c: c}
	pc.check(norm)
	if c.count() > before {
		return nil, "", spelling{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep filters' patterns as the caller wrote them
	if err := enc.Encode(norm); err != nil {
		c.add(prefix, "cannot be encoded: "+err.Error())
		return nil, "", spelling{}
	}
	id, _ := norm["id"].(string)
	var sp spelling
	if prefix != pdRoot {
		sp.path = backend.ListDefinitionPath
	}
	if idsKey != backend.DefaultDescriptorsKey {
		sp.descriptors = idsKey
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), id, sp
}

// spelling is how the caller wrote a definition, where it differs from
// the defaults: its path (the listed form) and its input_descriptors key
// (backend.OOBRequest's DefinitionPath and DescriptorsKey).
type spelling struct{ path, descriptors string }

// peCheck checks one normalized definition. Paths are chains (pathNode),
// formatted only for a problem kept: a definition of many descriptors and
// fields would otherwise cost a path string or several for each.
type peCheck struct {
	s      *peSchemas
	strict bool
	prefix string // field path of the definition object
	idsKey string // the caller's spelling of input_descriptors
	c      *collector
	groups map[string]bool
	// filters holds the definition's filters together to pefilter's
	// limits.
	filters filterBudget
}

// Bounds of one definition, checked before anything is compiled: each
// descriptor and field costs the schema library about a kilobyte however
// small it is written. A presentation answers at most 64 descriptors
// (pexcheck.MaxDescriptorMap), so a definition of more could never be met.
const (
	MaxInputDescriptors = 64
	MaxFields           = 32
)

func (pc *peCheck) check(def map[string]any) {
	root := pathNode{full: pc.prefix}
	ids := root.child(pc.idsKey)
	if list, ok := def["input_descriptors"].([]any); ok && len(list) > MaxInputDescriptors {
		pc.c.atf(&ids, "has %d input descriptors; at most %d are taken", len(list), MaxInputDescriptors)
		return
	}
	if list, ok := def["input_descriptors"].([]any); ok {
		for i, raw := range list {
			d, _ := raw.(map[string]any)
			constraints, _ := d["constraints"].(map[string]any)
			if fields, ok := constraints["fields"].([]any); ok && len(fields) > MaxFields {
				dp := ids.elem(i)
				cp := dp.child("constraints")
				fp := cp.child("fields")
				pc.c.atf(&fp, "has %d fields; at most %d are taken", len(fields), MaxFields)
				return
			}
		}
	}
	if pefilter.CheckNumbers(def) != nil {
		// Named where they are (a walk that allocates a path per value,
		// taken only when there is something to name).
		numbersWithinBounds(def, &root, map[string]string{"input_descriptors": pc.idsKey}, pc.c)
		return
	}
	checkSchema(pc.s.top, def, &root, map[string]string{"input_descriptors": pc.idsKey}, pc.c)
	list, ok := def["input_descriptors"].([]any)
	if !ok {
		return // missing or not an array: the schema said so
	}
	if len(list) == 0 {
		pc.c.at(&ids, "a proof request must ask for at least one input descriptor")
	}
	pc.groups = map[string]bool{}
	seen := map[string]int{}
	firstV1 := false
	for i, raw := range list {
		dp := ids.elem(i)
		d, ok := raw.(map[string]any)
		if !ok {
			pc.c.at(&dp, "must be an input descriptor object")
			continue
		}
		_, v1 := d["schema"]
		if i == 0 {
			firstV1 = v1
		} else if v1 != firstV1 {
			pc.c.at(&dp, "mixes DIF v1 input descriptors (with schema) and v2 ones (without schema, constraints required): use one style in a definition")
		}
		pc.descriptor(d, &dp, v1)
		if id, ok := d["id"].(string); ok {
			if strings.TrimSpace(id) == "" {
				pc.c.atKey(&dp, "id", "must not be empty")
			} else if first, dup := seen[id]; dup {
				q := dp.child("id")
				pc.c.atf(&q, "duplicate input descriptor id %q (also %s[%d])", id, pc.idsKey, first)
			} else {
				seen[id] = i
			}
		}
	}
	if reqs, ok := def["submission_requirements"].([]any); ok {
		p := root.child("submission_requirements")
		pc.requirements(reqs, &p)
	}
}

// descriptor checks input descriptor d, at dp. Once the collector is full,
// what costs more than a look (the DIF schema, field paths, filters) is
// not checked: its problems would only be counted.
func (pc *peCheck) descriptor(d map[string]any, dp *pathNode, v1 bool) {
	schema := pc.s.v2
	if v1 {
		schema = pc.s.v1
	}
	checkSchema(schema, d, dp, nil, pc.c)
	if groups, ok := d["group"].([]any); ok {
		for _, g := range groups {
			if name, ok := g.(string); ok {
				pc.groups[name] = true
			}
		}
	}
	if list, ok := d["schema"].([]any); ok {
		sp := dp.child("schema")
		for j, item := range list {
			if m, ok := item.(map[string]any); ok {
				if uri, ok := m["uri"].(string); ok && strings.TrimSpace(uri) == "" {
					q := sp.elem(j)
					pc.c.atKey(&q, "uri", "must not be empty")
				}
			}
		}
	}
	constraints, _ := d["constraints"].(map[string]any)
	fields, _ := constraints["fields"].([]any)
	cp := dp.child("constraints")
	fp := cp.child("fields")
	for j, raw := range fields {
		f, ok := raw.(map[string]any)
		if !ok || pc.c.full() {
			continue // the schema said so, or nothing more is kept
		}
		p := fp.elem(j)
		if paths, ok := f["path"].([]any); ok {
			pp := p.child("path")
			if len(paths) == 0 {
				pc.c.at(&pp, "must list at least one JSONPath expression")
			}
			for k, expr := range paths {
				if s, ok := expr.(string); ok && !pc.c.full() {
					if problem := jsonPathProblem(s); problem != "" {
						pc.c.atIndex(&pp, k, problem)
					} else if _, err := jsonpath.Compile(s); err != nil {
						// The local verifier evaluates it against what provers send.
						pc.c.atIndex(&pp, k, "is beyond what the verifier evaluates cheaply: "+err.Error()+jsonpathBound)
					}
				}
			}
		}
		if filter, ok := f["filter"]; ok {
			q := p.child("filter")
			pc.s.filters.compileFilter(filter, &q, &pc.filters, pc.c)
		}
	}
	if pc.strict {
		pc.strictDescriptor(d, dp, constraints, fields)
	}
}

// strictDescriptor requires every field the interface lists for an input
// descriptor (option input_descriptors strict).
func (pc *peCheck) strictDescriptor(d map[string]any, dp *pathNode, constraints map[string]any, fields []any) {
	const why = " (input_descriptors strict)"
	for _, name := range []string{"name", "purpose"} {
		switch s, ok := d[name].(string); {
		case d[name] == nil:
			pc.c.atKey(dp, name, "is required"+why)
		case ok && strings.TrimSpace(s) == "":
			pc.c.atKey(dp, name, "must not be empty"+why)
		}
	}
	if d["schema"] == nil {
		pc.c.atKey(dp, "schema", "is required"+why+": a non-empty list of {uri}")
	}
	switch {
	case d["constraints"] == nil:
		pc.c.atKey(dp, "constraints", "is required"+why+": {fields: [{path: [...]}]}")
	case constraints != nil && len(fields) == 0:
		cp := dp.child("constraints")
		pc.c.atKey(&cp, "fields", "must list at least one field with a path"+why)
	}
}

// requirements checks submission_requirements beyond the schema: exactly
// one of from and from_nested, from naming a group some input descriptor
// is in, and min not above max. Paths are chains, formatted only for a
// problem kept: nested from_nested lists make long ones.
func (pc *peCheck) requirements(reqs []any, path *pathNode) {
	for i, raw := range reqs {
		p := path.elem(i)
		r, ok := raw.(map[string]any)
		if !ok {
			continue // the schema said so
		}
		from, hasFrom := r["from"]
		nested, hasNested := r["from_nested"]
		switch {
		case hasFrom && hasNested:
			pc.c.at(&p, "must have exactly one of from or from_nested, not both")
		case !hasFrom && !hasNested:
			pc.c.at(&p, "must have exactly one of from or from_nested")
		}
		if name, ok := from.(string); ok && !pc.groups[name] {
			q := p.child("from")
			pc.c.atf(&q, "no input descriptor is in group %q", name)
		}
		if list, ok := nested.([]any); ok {
			// On the heap for the nested ones, so that p need not be for
			// all: the ones of a long list cost no allocation.
			parent := new(pathNode)
			*parent = p
			pc.requirements(list, &pathNode{parent: parent, key: "from_nested"})
		}
		lo, okLo := integer(r["min"])
		hi, okHi := integer(r["max"])
		if okLo && okHi && lo > hi {
			q := p.child("max")
			pc.c.at(&q, "must not be less than min")
		}
	}
}
