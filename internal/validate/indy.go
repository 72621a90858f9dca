package validate

import (
	"math"
	"slices"
	"strings"

	"github.com/proofgate/proofgate/internal/backend"
)

var (
	indyFields       = []string{"name", "version", "requested_attributes", "requested_predicates", "non_revoked"}
	attributeFields  = []string{"name", "names", "restrictions", "non_revoked"}
	predicateFields  = []string{"name", "p_type", "p_value", "restrictions", "non_revoked"}
	nonRevokedFields = []string{"from", "to"}
	predicateTypes   = []string{">=", ">", "<=", "<"}
)

// indy checks proofFormats.indy, an AnonCreds proof request without nonce.
func (v *Validator) indy(obj value, path *pathNode, c *collector) *backend.IndyProofRequest {
	if !obj.is(kindObject) {
		c.at(path, "must be an object")
		return nil
	}
	v.unknownKeys(obj, path, indyFields, c)
	am, pm := obj.get("requested_attributes"), obj.get("requested_predicates")
	var req backend.IndyProofRequest
	req.Name = nonEmptyString(obj, path, "name", true, c)
	if ver := obj.get("version"); !ver.present() {
		p := path.child("version")
		c.at(&p, `is required: a dotted version like "1.0"`)
	} else if s, ok := ver.str(); !ok || !dottedVersion(s) {
		p := path.child("version")
		c.at(&p, `must be a dotted version of digits like "1.0"`)
	} else {
		req.Version = s
	}

	attrsOK, predsOK := true, true
	if !am.missing() {
		p := path.child("requested_attributes")
		if !am.is(kindObject) {
			c.at(&p, "must be an object mapping referents to attribute requests")
			attrsOK = false
		}
		for it := am.members(); it.next(); {
			ref := it.key()
			rp := p.child(ref)
			if ref == "" {
				c.at(&rp, "a referent must not be empty")
			}
			if a, ok := v.attribute(it.value(), &rp, c); ok {
				if req.RequestedAttributes == nil {
					req.RequestedAttributes = make(map[string]backend.IndyAttribute, objectLen(am))
				}
				req.RequestedAttributes[ref] = a
			}
		}
	}
	if !pm.missing() {
		p := path.child("requested_predicates")
		if !pm.is(kindObject) {
			c.at(&p, "must be an object mapping referents to predicate requests")
			predsOK = false
		}
		attrRefs := newReferents(am, objectLen(pm))
		for it := pm.members(); it.next(); {
			ref := it.key()
			rp := p.child(ref)
			if ref == "" {
				c.at(&rp, "a referent must not be empty")
			}
			if attrRefs.has(ref) {
				c.atf(&rp, "referent %q is also used in requested_attributes; referents must be unique", ref)
			}
			if pr, ok := v.predicate(it.value(), &rp, c); ok {
				if req.RequestedPredicates == nil {
					req.RequestedPredicates = make(map[string]backend.IndyPredicate, objectLen(pm))
				}
				req.RequestedPredicates[ref] = pr
			}
		}
	}
	if attrsOK && predsOK && objectLen(am) == 0 && objectLen(pm) == 0 {
		c.at(path, "must request at least one attribute (requested_attributes) or predicate (requested_predicates)")
	}
	if raw := obj.get("non_revoked"); !raw.missing() {
		p := path.child("non_revoked")
		req.NonRevoked = v.nonRevoked(raw, &p, c)
	}
	if !c.empty() {
		// The request is refused (OOB answers only the problems): build
		// nothing more for it.
		return nil
	}
	// Empty maps stay maps: agents want {} rather than null.
	if req.RequestedAttributes == nil {
		req.RequestedAttributes = map[string]backend.IndyAttribute{}
	}
	if req.RequestedPredicates == nil {
		req.RequestedPredicates = map[string]backend.IndyPredicate{}
	}
	// A copy escapes, not req: a refused request allocates none.
	out := req
	return &out
}

// referents answers whether a referent is one of requested_attributes,
// for each predicate: by searching requested_attributes when it is small
// or asked once, else in a map of its referents built once (a search per
// predicate made a body of thousands of both quadratic).
type referents struct {
	attrs value
	seen  seenSet
	many  bool
}

// newReferents prepares the lookups of the referents of attrs, asked for
// about asks times.
func newReferents(attrs value, asks int) referents {
	r := referents{attrs: attrs}
	if asks > 1 && objectLen(attrs) > smallObject {
		r.many = true
		for it := attrs.members(); it.next(); {
			r.seen.add(it.key(), 0)
		}
		attrs.d.probes += r.seen.probes
		r.seen.probes = 0
	}
	return r
}

func (r *referents) has(ref string) bool {
	if !r.many {
		return r.attrs.get(ref).present()
	}
	_, found := r.seen.find(ref)
	r.attrs.d.probes += r.seen.probes
	r.seen.probes = 0
	return found
}

// objectLen is the number of keys of an object, 0 for anything else.
func objectLen(v value) int {
	if !v.is(kindObject) {
		return 0
	}
	return v.len()
}

// dottedVersion reports whether s is a dotted version of digits, as
// AnonCreds and ACA-Py (^[0-9.]+$, tightened to no empty parts) expect:
// ^[0-9]+(\.[0-9]+)*$, checked without a regexp.
func dottedVersion(s string) bool {
	digits := 0
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b >= '0' && b <= '9':
			digits++
		case b == '.' && digits > 0:
			digits = 0
		default:
			return false
		}
	}
	return digits > 0
}

func (v *Validator) attribute(obj value, path *pathNode, c *collector) (backend.IndyAttribute, bool) {
	var a backend.IndyAttribute
	if !obj.is(kindObject) {
		c.at(path, "must be an object with name or names")
		return a, false
	}
	v.unknownKeys(obj, path, attributeFields, c)
	hasName := obj.get("name").present()
	names := obj.get("names")
	switch {
	case hasName && names.present():
		c.at(path, "must have exactly one of name or names, not both")
	case !hasName && !names.present():
		c.at(path, "must have exactly one of name or names")
	case hasName:
		a.Name = nonEmptyString(obj, path, "name", true, c)
	default:
		p := path.child("names")
		a.Names = attributeNames(names, &p, c)
	}
	rp := path.child("restrictions")
	a.Restrictions = restrictions(obj.get("restrictions"), &rp, c)
	if raw := obj.get("non_revoked"); !raw.missing() {
		p := path.child("non_revoked")
		a.NonRevoked = v.nonRevoked(raw, &p, c)
	}
	return a, true
}

func attributeNames(arr value, path *pathNode, c *collector) []string {
	if !arr.is(kindArray) {
		c.at(path, "must be an array of attribute names")
		return nil
	}
	if arr.len() == 0 {
		c.at(path, "must not be empty")
		return nil
	}
	out := make([]string, 0, arr.len())
	var seen seenSet
	for it := arr.elems(); it.next(); {
		s, ok := it.value().str()
		if !ok {
			c.atIndex(path, it.index(), "must be a string")
			continue
		}
		if strings.TrimSpace(s) == "" {
			c.atIndex(path, it.index(), "must not be empty")
			continue
		}
		if _, dup := seen.add(s, it.index()); dup {
			p := path.elem(it.index())
			c.atf(&p, "duplicate attribute name %q", s)
			continue
		}
		out = append(out, s)
	}
	arr.d.probes += seen.probes
	return out
}

func (v *Validator) predicate(obj value, path *pathNode, c *collector) (backend.IndyPredicate, bool) {
	var p backend.IndyPredicate
	if !obj.is(kindObject) {
		c.at(path, "must be an object with name, p_type and p_value")
		return p, false
	}
	v.unknownKeys(obj, path, predicateFields, c)
	p.Name = nonEmptyString(obj, path, "name", true, c)
	switch t := obj.get("p_type"); {
	case !t.present():
		c.atKey(path, "p_type", `is required: one of ">=", ">", "<=", "<"`)
	case !isOneOf(t, predicateTypes):
		c.atKey(path, "p_type", `must be one of ">=", ">", "<=", "<"`)
	default:
		p.PType, _ = t.str()
	}
	if raw := obj.get("p_value"); !raw.present() {
		c.atKey(path, "p_value", "is required (an integer)")
	} else if n, ok := integerValue(raw); !ok || n < math.MinInt32 || n > math.MaxInt32 {
		c.atKey(path, "p_value", "must be an integer that fits in 32 bits")
	} else {
		p.PValue = int32(n)
	}
	rp := path.child("restrictions")
	p.Restrictions = restrictions(obj.get("restrictions"), &rp, c)
	if raw := obj.get("non_revoked"); !raw.missing() {
		np := path.child("non_revoked")
		p.NonRevoked = v.nonRevoked(raw, &np, c)
	}
	return p, true
}

// nonRevoked reads an interval {from?, to?} in epoch seconds; {} means no
// interval and yields nil.
func (v *Validator) nonRevoked(obj value, path *pathNode, c *collector) *backend.NonRevoked {
	if !obj.is(kindObject) {
		c.at(path, "must be an object {from?, to?} of epoch seconds")
		return nil
	}
	v.unknownKeys(obj, path, nonRevokedFields, c)
	var from, to int64
	var hasFrom, hasTo bool
	for _, name := range nonRevokedFields {
		raw := obj.get(name)
		if raw.missing() {
			continue
		}
		n, ok := integerValue(raw)
		if !ok || n < 0 {
			c.atKey(path, name, "must be a non-negative integer (epoch seconds)")
			continue
		}
		if name == "from" {
			from, hasFrom = n, true
		} else {
			to, hasTo = n, true
		}
	}
	if hasFrom && hasTo && from > to {
		c.atKey(path, "from", "must not be after to")
	}
	if !hasFrom && !hasTo {
		return nil
	}
	// Copied here, so that from and to live on the heap only when kept.
	nr := &backend.NonRevoked{}
	if hasFrom {
		f := from
		nr.From = &f
	}
	if hasTo {
		t := to
		nr.To = &t
	}
	return nr
}

// nonEmptyString reads member name of obj as a string with something
// besides spaces in it.
func nonEmptyString(obj value, path *pathNode, name string, required bool, c *collector) string {
	raw := obj.get(name)
	if !raw.present() {
		if required {
			c.atKey(path, name, "is required")
		}
		return ""
	}
	s, ok := raw.str()
	switch {
	case !ok:
		c.atKey(path, name, "must be a string")
	case strings.TrimSpace(s) == "":
		c.atKey(path, name, "must not be empty")
	}
	return s
}

func isOneOf(raw value, values []string) bool {
	s, ok := raw.str()
	return ok && slices.Contains(values, s)
}
