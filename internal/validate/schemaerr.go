package validate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var english = message.NewPrinter(language.English)

// schemaProblems turns a JSON Schema validation error about inst, found at
// field path base, into "fieldpath: problem" messages. rootRename renames
// the first path token (the definition's input_descriptors back to the
// caller's inputDescriptors spelling).
func schemaProblems(err error, base *pathNode, inst any, rootRename map[string]string, c *collector) {
	schemaProblemsAt(err, base, inst, 0, rootRename, c)
}

// schemaProblemsAt is schemaProblems for inst an array whose first element
// is element offset of the one at base (a part of it checkSchema checks
// alone).
func schemaProblemsAt(err error, base *pathNode, inst any, offset int, rootRename map[string]string, c *collector) {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		if c.full() {
			c.drop()
			return
		}
		c.at(base, err.Error())
		return
	}
	t := schemaTranslator{base: base, inst: inst, rename: rootRename, offset: offset}
	t.walk(ve, c)
}

type schemaTranslator struct {
	base   *pathNode // inst's path; nil for the body
	inst   any
	rename map[string]string
	offset int // added to the first token when inst is an array
}

// walk reports the problems of ve. Once c only counts problems, their
// paths and texts are not worked out: a definition built to fail the
// schema in every one of its many parts (a long key above them all) would
// otherwise cost a path and a message each.
func (t *schemaTranslator) walk(ve *jsonschema.ValidationError, c *collector) {
	switch ve.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		if c.full() {
			c.drop()
			return
		}
		// Say once that none of the alternatives fit, with what each
		// wanted, rather than a list that reads as if all must hold.
		var sub collector
		for _, cause := range ve.Causes {
			t.walk(cause, &sub)
		}
		msgs := sub.errors()
		p := t.path(ve.InstanceLocation)
		switch len(msgs) {
		case 0:
			c.at(p, "matches none of the allowed forms")
		case 1:
			c.addMessage(msgs[0])
		default:
			prefix := string(appendPath(nil, p)) + ": "
			for i, m := range msgs {
				msgs[i] = strings.TrimPrefix(m, prefix)
			}
			c.at(p, "matches none of the allowed forms ("+strings.Join(msgs, " | ")+")")
		}
		return
	}
	if len(ve.Causes) > 0 {
		for _, cause := range ve.Causes {
			t.walk(cause, c)
		}
		return
	}
	if c.full() {
		n := 1
		switch k := ve.ErrorKind.(type) {
		case *kind.Required:
			n = len(k.Missing)
		case *kind.Dependency:
			n = len(k.Missing)
		case *kind.AdditionalProperties:
			n = len(k.Properties)
		}
		for range n {
			c.drop()
		}
		return
	}
	p := t.path(ve.InstanceLocation)
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			q := p.child(m)
			c.at(&q, "is required")
		}
	case *kind.Dependency:
		for _, m := range k.Missing {
			q := p.child(m)
			c.at(&q, "is required when "+k.Prop+" is present")
		}
	case *kind.AdditionalProperties:
		problem := "is not a DIF Presentation Exchange field here"
		if strings.HasPrefix(ve.SchemaURL, claimFormatURL) {
			problem = "is not a claim format of the DIF schema (jwt, jwt_vc, jwt_vp, ldp, ldp_vc, ldp_vp)"
		}
		for _, prop := range k.Properties {
			q := p.child(prop)
			c.at(&q, problem)
		}
	case *kind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = article(w)
		}
		c.at(p, "must be "+strings.Join(want, " or "))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprintf("%q", fmt.Sprint(w))
			if _, isString := w.(string); !isString {
				want[i] = fmt.Sprint(w)
			}
		}
		c.at(p, "must be one of "+strings.Join(want, ", "))
	case *kind.MinItems:
		if k.Want == 1 {
			c.at(p, "must not be empty")
		} else {
			c.atf(p, "must have at least %d items", k.Want)
		}
	case *kind.Minimum:
		c.at(p, "must be at least "+k.Want.RatString())
	case *kind.Format:
		c.atf(p, "must be a valid %s: %v", k.Want, k.Err)
	case *kind.FalseSchema:
		c.at(p, "is not allowed")
	default:
		c.at(p, ve.ErrorKind.LocalizedString(english))
	}
}

// path turns an instance location (JSON pointer tokens) into the path of
// a field under base, looking at the instance to tell array indexes from
// keys. The path is a chain of nodes, formatted (at most its start and
// end) only if a problem is kept.
func (t *schemaTranslator) path(loc []string) *pathNode {
	if len(loc) == 0 {
		return t.base
	}
	nodes := make([]pathNode, len(loc))
	// base copied, so that the caller's may stay on its stack: a path is
	// worked out only for a problem kept.
	p, cur := clonePath(t.base), t.inst
	for i, tok := range loc {
		n := &nodes[i]
		switch node := cur.(type) {
		case []any:
			k, err := strconv.Atoi(tok)
			if err == nil && k >= 0 && k < len(node) {
				idx := k
				if i == 0 {
					idx += t.offset
				}
				*n, cur = p.elem(idx), node[k]
				p = n
				continue
			}
		case map[string]any:
			cur = node[tok]
		default:
			cur = nil
		}
		if i == 0 && t.rename[tok] != "" {
			tok = t.rename[tok]
		}
		*n = p.child(tok)
		p = n
	}
	return p
}

func article(typ string) string {
	switch typ {
	case "object", "array", "integer":
		return "an " + typ
	case "null":
		return "null"
	}
	return "a " + typ
}
