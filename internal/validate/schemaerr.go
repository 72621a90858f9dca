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
func schemaProblems(err error, base string, inst any, rootRename map[string]string, c *collector) {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		c.add(base, err.Error())
		return
	}
	t := schemaTranslator{base: base, inst: inst, rename: rootRename}
	t.walk(ve, c)
}

type schemaTranslator struct {
	base   string
	inst   any
	rename map[string]string
}

func (t *schemaTranslator) walk(ve *jsonschema.ValidationError, c *collector) {
	switch ve.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
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
			c.add(p, "matches none of the allowed forms")
		case 1:
			c.addMessage(msgs[0])
		default:
			for i, m := range msgs {
				msgs[i] = strings.TrimPrefix(m, p+": ")
			}
			c.add(p, "matches none of the allowed forms ("+strings.Join(msgs, " | ")+")")
		}
		return
	}
	if len(ve.Causes) > 0 {
		for _, cause := range ve.Causes {
			t.walk(cause, c)
		}
		return
	}
	p := t.path(ve.InstanceLocation)
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			c.add(key(p, m), "is required")
		}
	case *kind.Dependency:
		for _, m := range k.Missing {
			c.add(key(p, m), "is required when "+k.Prop+" is present")
		}
	case *kind.AdditionalProperties:
		problem := "is not a DIF Presentation Exchange field here"
		if strings.HasPrefix(ve.SchemaURL, claimFormatURL) {
			problem = "is not a claim format of the DIF schema (jwt, jwt_vc, jwt_vp, ldp, ldp_vc, ldp_vp)"
		}
		for _, prop := range k.Properties {
			c.add(key(p, prop), problem)
		}
	case *kind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = article(w)
		}
		c.add(p, "must be "+strings.Join(want, " or "))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprintf("%q", fmt.Sprint(w))
			if _, isString := w.(string); !isString {
				want[i] = fmt.Sprint(w)
			}
		}
		c.add(p, "must be one of "+strings.Join(want, ", "))
	case *kind.MinItems:
		if k.Want == 1 {
			c.add(p, "must not be empty")
		} else {
			c.addf(p, "must have at least %d items", k.Want)
		}
	case *kind.Minimum:
		c.add(p, "must be at least "+k.Want.RatString())
	case *kind.Format:
		c.addf(p, "must be a valid %s: %v", k.Want, k.Err)
	case *kind.FalseSchema:
		c.add(p, "is not allowed")
	default:
		c.add(p, ve.ErrorKind.LocalizedString(english))
	}
}

// path formats an instance location (JSON pointer tokens) as a field path
// under base, looking at the instance to tell array indexes from keys.
func (t *schemaTranslator) path(loc []string) string {
	p, cur := t.base, t.inst
	for i, tok := range loc {
		switch node := cur.(type) {
		case []any:
			n, err := strconv.Atoi(tok)
			if err == nil && n >= 0 && n < len(node) {
				p, cur = index(p, n), node[n]
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
		p = key(p, tok)
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
