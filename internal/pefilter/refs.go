package pefilter

import (
	"net/url"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// RefError is a reference in a filter ($ref, $recursiveRef, $dynamicRef):
// Pointer is the JSON pointer of the keyword inside the filter
// ("/items/anyOf/0/$ref").
//
// A filter may not refer to a schema, not even to one of its own parts.
// A schema that refers to itself ({"items": {"anyOf": [{"$ref": "#"},
// {"$ref": "#"}]}}, 62 bytes) costs work exponential in the depth of the
// value it meets, and a chain of parts that each refer twice to the next
// is exponential in the chain's length on any value: a filter's size
// would bound neither. DIF's filters do not refer (testdata/
// presentation-exchange), and a part used twice can be written twice
// within the filter limits.
type RefError struct {
	Pointer string
	Keyword string
}

func (e *RefError) Error() string {
	return e.Pointer + ": " + e.Message()
}

// Message reads after the keyword's path.
func (e *RefError) Message() string {
	return "a filter must not refer to a schema, not even to a part of itself: a reference can make matching cost work exponential in the prover's data; write the schema out"
}

// refusedRef finds a reference among s and the schemas under it (nil
// when there is none). A filter compiled from one document, without
// references, is a tree; seen guards against anything else.
func refusedRef(s *jsonschema.Schema, seen map[*jsonschema.Schema]bool) *RefError {
	if s == nil || seen[s] {
		return nil
	}
	seen[s] = true
	switch {
	case s.Ref != nil:
		return &RefError{Pointer: schemaPointer(s.Location, "$ref"), Keyword: "$ref"}
	case s.RecursiveRef != nil:
		return &RefError{Pointer: schemaPointer(s.Location, "$recursiveRef"), Keyword: "$recursiveRef"}
	case s.DynamicRef != nil:
		return &RefError{Pointer: schemaPointer(s.Location, "$dynamicRef"), Keyword: "$dynamicRef"}
	}
	for _, sub := range subschemas(s) {
		if e := refusedRef(sub, seen); e != nil {
			return e
		}
	}
	return nil
}

// subschemas are the schemas s applies: every keyword of the Schema type
// that holds one (definitions are not applied, and are compiled only when
// referred to).
func subschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	subs := []*jsonschema.Schema{s.Not, s.If, s.Then, s.Else, s.PropertyNames, s.UnevaluatedProperties,
		s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema}
	subs = append(subs, s.AllOf...)
	subs = append(subs, s.AnyOf...)
	subs = append(subs, s.OneOf...)
	subs = append(subs, s.PrefixItems...)
	for _, p := range s.Properties {
		subs = append(subs, p)
	}
	for _, p := range s.PatternProperties {
		subs = append(subs, p)
	}
	for _, p := range s.DependentSchemas {
		subs = append(subs, p)
	}
	for _, d := range s.Dependencies {
		if p, ok := d.(*jsonschema.Schema); ok {
			subs = append(subs, p)
		}
	}
	for _, v := range []any{s.AdditionalProperties, s.AdditionalItems, s.Items} {
		switch t := v.(type) {
		case *jsonschema.Schema:
			subs = append(subs, t)
		case []*jsonschema.Schema:
			subs = append(subs, t...)
		}
	}
	return subs
}

// schemaPointer is the JSON pointer, inside the filter, of keyword in the
// schema at loc ("urn:proofgate:filter#/items"); the keyword alone when
// the schema is elsewhere (in a part of the filter with its own $id).
func schemaPointer(loc, keyword string) string {
	frag, ok := strings.CutPrefix(loc, resourceURL+"#")
	if !ok {
		return "/" + keyword
	}
	if unescaped, err := url.PathUnescape(frag); err == nil {
		frag = unescaped
	}
	return frag + "/" + keyword
}
