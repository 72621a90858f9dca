package anoncreds

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The presentation's shape, as the reference reads it (serde): every
// member of the reference's types is required and not null, except the
// ones marked optional (may be missing, not null) or nullable (may be
// missing or null). Members the reference does not know are ignored, as it
// ignores them; a member that differs from a known one only in case is
// refused (encoding/json would take it for the known one, serde would not).
type shape struct {
	fields map[string]member // an object with these members
	values *shape            // a map: every value has this shape
	items  *shape            // an array: every item has this shape
	leaf   bool              // a string, number or array of numbers: the typed decoding checks it
}

type member struct {
	shape    *shape
	optional bool // may be missing
	nullable bool // may be missing or null
}

var leaf = &shape{leaf: true}

func obj(fields map[string]member) *shape { return &shape{fields: fields} }
func req(s *shape) member                 { return member{shape: s} }
func opt(s *shape) member                 { return member{shape: s, optional: true} }
func nullable() member                    { return member{shape: leaf, optional: true, nullable: true} }
func mapOf(s *shape) *shape               { return &shape{values: s} }
func listOf(s *shape) *shape              { return &shape{items: s} }

var (
	subProofRef   = obj(map[string]member{"sub_proof_index": req(leaf)})
	rawEncoded    = obj(map[string]member{"raw": req(leaf), "encoded": req(leaf)})
	revealedShape = obj(map[string]member{"sub_proof_index": req(leaf), "raw": req(leaf), "encoded": req(leaf)})
	groupShape    = obj(map[string]member{"sub_proof_index": req(leaf), "values": req(mapOf(rawEncoded))})
	eqProofShape  = obj(map[string]member{
		"revealed_attrs": req(mapOf(leaf)), "a_prime": req(leaf), "e": req(leaf), "v": req(leaf),
		"m": req(mapOf(leaf)), "m2": req(leaf),
	})
	geProofShape = obj(map[string]member{
		"u": req(mapOf(leaf)), "r": req(mapOf(leaf)), "mj": req(leaf), "alpha": req(leaf), "t": req(mapOf(leaf)),
		"predicate": req(obj(map[string]member{"attr_name": req(leaf), "p_type": req(leaf), "value": req(leaf)})),
	})
	presentationShape = obj(map[string]member{
		"proof": req(obj(map[string]member{
			"proofs": req(listOf(obj(map[string]member{
				"primary_proof":   req(obj(map[string]member{"eq_proof": req(eqProofShape), "ge_proofs": req(listOf(geProofShape))})),
				"non_revoc_proof": nullable(),
			}))),
			"aggregated_proof": req(obj(map[string]member{"c_hash": req(leaf), "c_list": req(leaf)})),
		})),
		"requested_proof": req(obj(map[string]member{
			"revealed_attrs":       req(mapOf(revealedShape)),
			"revealed_attr_groups": opt(mapOf(groupShape)),
			"self_attested_attrs":  opt(mapOf(leaf)),
			"unrevealed_attrs":     opt(mapOf(subProofRef)),
			"predicates":           opt(mapOf(subProofRef)),
		})),
		"identifiers": req(listOf(obj(map[string]member{
			"schema_id": req(leaf), "cred_def_id": req(leaf), "rev_reg_id": nullable(), "timestamp": nullable(),
		}))),
	})
)

// checkShape checks a presentation against presentationShape and returns
// the first problem, naming the member.
func checkShape(raw []byte) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("the presentation is not JSON: %v", err)
	}
	return presentationShape.check("presentation", v)
}

func (s *shape) check(path string, v any) error {
	switch {
	case s.leaf:
		if v == nil {
			return fmt.Errorf("%s: null", path)
		}
		return nil
	case s.fields != nil:
		o, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: not an object", path)
		}
		for k := range o {
			if _, known := s.fields[k]; known {
				continue
			}
			for name := range s.fields {
				if strings.EqualFold(k, name) {
					return fmt.Errorf("%s: member %q is not %q", path, k, name)
				}
			}
		}
		for name, m := range s.fields {
			val, present := o[name]
			switch {
			case !present && (m.optional || m.nullable):
			case !present:
				return fmt.Errorf("%s.%s: missing", path, name)
			case val == nil && m.nullable:
			default:
				if err := m.shape.check(path+"."+name, val); err != nil {
					return err
				}
			}
		}
		return nil
	case s.values != nil:
		o, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: not an object", path)
		}
		for k, val := range o {
			if err := s.values.check(path+"."+k, val); err != nil {
				return err
			}
		}
		return nil
	default:
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: not an array", path)
		}
		for i, val := range a {
			if err := s.items.check(fmt.Sprintf("%s[%d]", path, i), val); err != nil {
				return err
			}
		}
		return nil
	}
}
