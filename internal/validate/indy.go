package validate

import (
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/proofgate/proofgate/internal/backend"
)

// versionPattern is a dotted version of digits, as AnonCreds and ACA-Py
// (^[0-9.]+$, tightened to no empty parts) expect.
var versionPattern = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)

var (
	indyFields       = []string{"name", "version", "requested_attributes", "requested_predicates", "non_revoked"}
	attributeFields  = []string{"name", "names", "restrictions", "non_revoked"}
	predicateFields  = []string{"name", "p_type", "p_value", "restrictions", "non_revoked"}
	nonRevokedFields = []string{"from", "to"}
	predicateTypes   = []string{">=", ">", "<=", "<"}
)

// indy checks proofFormats.indy, an AnonCreds proof request without nonce.
func (v *Validator) indy(raw any, path string, c *collector) *backend.IndyProofRequest {
	obj, ok := raw.(map[string]any)
	if !ok {
		c.add(path, "must be an object")
		return nil
	}
	v.unknownKeys(obj, path, indyFields, c)
	req := &backend.IndyProofRequest{
		RequestedAttributes: map[string]backend.IndyAttribute{},
		RequestedPredicates: map[string]backend.IndyPredicate{},
	}
	req.Name = nonEmptyString(obj, path, "name", true, c)
	if ver, present := obj["version"]; !present {
		c.add(key(path, "version"), `is required: a dotted version like "1.0"`)
	} else if s, ok := ver.(string); !ok || !versionPattern.MatchString(s) {
		c.add(key(path, "version"), `must be a dotted version of digits like "1.0"`)
	} else {
		req.Version = s
	}

	attrsOK, predsOK := true, true
	if raw := obj["requested_attributes"]; raw != nil {
		am, ok := raw.(map[string]any)
		if !ok {
			c.add(key(path, "requested_attributes"), "must be an object mapping referents to attribute requests")
			attrsOK = false
		}
		p := key(path, "requested_attributes")
		for _, ref := range sortedKeys(am) {
			if ref == "" {
				c.add(key(p, ref), "a referent must not be empty")
			}
			if a, ok := v.attribute(am[ref], key(p, ref), c); ok {
				req.RequestedAttributes[ref] = a
			}
		}
	}
	if raw := obj["requested_predicates"]; raw != nil {
		pm, ok := raw.(map[string]any)
		if !ok {
			c.add(key(path, "requested_predicates"), "must be an object mapping referents to predicate requests")
			predsOK = false
		}
		p := key(path, "requested_predicates")
		for _, ref := range sortedKeys(pm) {
			if ref == "" {
				c.add(key(p, ref), "a referent must not be empty")
			}
			if _, clash := attrs(obj)[ref]; clash {
				c.addf(key(p, ref), "referent %q is also used in requested_attributes; referents must be unique", ref)
			}
			if pr, ok := v.predicate(pm[ref], key(p, ref), c); ok {
				req.RequestedPredicates[ref] = pr
			}
		}
	}
	if attrsOK && predsOK && len(attrs(obj)) == 0 && len(preds(obj)) == 0 {
		c.add(path, "must request at least one attribute (requested_attributes) or predicate (requested_predicates)")
	}
	if raw := obj["non_revoked"]; raw != nil {
		req.NonRevoked = v.nonRevoked(raw, key(path, "non_revoked"), c)
	}
	return req
}

func attrs(obj map[string]any) map[string]any {
	m, _ := obj["requested_attributes"].(map[string]any)
	return m
}

func preds(obj map[string]any) map[string]any {
	m, _ := obj["requested_predicates"].(map[string]any)
	return m
}

func (v *Validator) attribute(raw any, path string, c *collector) (backend.IndyAttribute, bool) {
	var a backend.IndyAttribute
	obj, ok := raw.(map[string]any)
	if !ok {
		c.add(path, "must be an object with name or names")
		return a, false
	}
	v.unknownKeys(obj, path, attributeFields, c)
	_, hasName := obj["name"]
	_, hasNames := obj["names"]
	switch {
	case hasName && hasNames:
		c.add(path, "must have exactly one of name or names, not both")
	case !hasName && !hasNames:
		c.add(path, "must have exactly one of name or names")
	case hasName:
		a.Name = nonEmptyString(obj, path, "name", true, c)
	default:
		a.Names = names(obj["names"], key(path, "names"), c)
	}
	a.Restrictions = restrictions(obj["restrictions"], key(path, "restrictions"), c)
	if raw := obj["non_revoked"]; raw != nil {
		a.NonRevoked = v.nonRevoked(raw, key(path, "non_revoked"), c)
	}
	return a, true
}

func names(raw any, path string, c *collector) []string {
	arr, ok := raw.([]any)
	if !ok {
		c.add(path, "must be an array of attribute names")
		return nil
	}
	if len(arr) == 0 {
		c.add(path, "must not be empty")
		return nil
	}
	out := make([]string, 0, len(arr))
	for i, item := range arr {
		s, ok := item.(string)
		switch {
		case !ok:
			c.add(index(path, i), "must be a string")
		case strings.TrimSpace(s) == "":
			c.add(index(path, i), "must not be empty")
		case slices.Contains(out, s):
			c.addf(index(path, i), "duplicate attribute name %q", s)
		default:
			out = append(out, s)
		}
	}
	return out
}

func (v *Validator) predicate(raw any, path string, c *collector) (backend.IndyPredicate, bool) {
	var p backend.IndyPredicate
	obj, ok := raw.(map[string]any)
	if !ok {
		c.add(path, "must be an object with name, p_type and p_value")
		return p, false
	}
	v.unknownKeys(obj, path, predicateFields, c)
	p.Name = nonEmptyString(obj, path, "name", true, c)
	switch t, present := obj["p_type"]; {
	case !present:
		c.add(key(path, "p_type"), `is required: one of ">=", ">", "<=", "<"`)
	case !isOneOf(t, predicateTypes):
		c.add(key(path, "p_type"), `must be one of ">=", ">", "<=", "<"`)
	default:
		p.PType = t.(string)
	}
	if raw, present := obj["p_value"]; !present {
		c.add(key(path, "p_value"), "is required (an integer)")
	} else if n, ok := integer(raw); !ok || n < math.MinInt32 || n > math.MaxInt32 {
		c.add(key(path, "p_value"), "must be an integer that fits in 32 bits")
	} else {
		p.PValue = int32(n)
	}
	p.Restrictions = restrictions(obj["restrictions"], key(path, "restrictions"), c)
	if raw := obj["non_revoked"]; raw != nil {
		p.NonRevoked = v.nonRevoked(raw, key(path, "non_revoked"), c)
	}
	return p, true
}

// nonRevoked reads an interval {from?, to?} in epoch seconds; {} means no
// interval and yields nil.
func (v *Validator) nonRevoked(raw any, path string, c *collector) *backend.NonRevoked {
	obj, ok := raw.(map[string]any)
	if !ok {
		c.add(path, "must be an object {from?, to?} of epoch seconds")
		return nil
	}
	v.unknownKeys(obj, path, nonRevokedFields, c)
	var nr backend.NonRevoked
	for _, name := range nonRevokedFields {
		raw := obj[name]
		if raw == nil {
			continue
		}
		n, ok := integer(raw)
		if !ok || n < 0 {
			c.add(key(path, name), "must be a non-negative integer (epoch seconds)")
			continue
		}
		if name == "from" {
			nr.From = &n
		} else {
			nr.To = &n
		}
	}
	if nr.From != nil && nr.To != nil && *nr.From > *nr.To {
		c.add(key(path, "from"), "must not be after to")
	}
	if nr.From == nil && nr.To == nil {
		return nil
	}
	return &nr
}

// nonEmptyString reads obj[name] as a string with something besides
// spaces in it.
func nonEmptyString(obj map[string]any, path, name string, required bool, c *collector) string {
	raw, present := obj[name]
	if !present {
		if required {
			c.add(key(path, name), "is required")
		}
		return ""
	}
	s, ok := raw.(string)
	switch {
	case !ok:
		c.add(key(path, name), "must be a string")
	case strings.TrimSpace(s) == "":
		c.add(key(path, name), "must not be empty")
	}
	return s
}

func isOneOf(raw any, values []string) bool {
	s, ok := raw.(string)
	return ok && slices.Contains(values, s)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
