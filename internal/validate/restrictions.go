package validate

import (
	"strings"
)

// restrictionKeys are the AnonCreds WQL restriction keys (anoncreds-spec
// data_flow_presentation_create_request.md), plus schema_issuer_id and
// issuer_id that Credo also accepts. attr::<name>::value and
// attr::<name>::marker are checked apart.
var restrictionKeys = map[string]func(string) (string, bool){
	"schema_id":         schemaIDProblem,
	"schema_issuer_did": didProblem,
	"schema_name":       nil,
	"schema_version":    nil,
	"issuer_did":        didProblem,
	"cred_def_id":       credDefIDProblem,
	"rev_reg_id":        revRegIDProblem,
	"schema_issuer_id":  issuerIDProblem,
	"issuer_id":         issuerIDProblem,
}

const restrictionKeyList = "schema_id, schema_issuer_did, schema_name, schema_version, issuer_did, " +
	"cred_def_id, rev_reg_id, schema_issuer_id, issuer_id, attr::<name>::value, attr::<name>::marker"

// restrictions reads an array of restriction objects (the array means OR;
// the keys of one object AND). Absent or null means no restriction.
func restrictions(arr value, path *pathNode, c *collector) []map[string]string {
	if arr.missing() {
		return nil
	}
	if !arr.is(kindArray) {
		c.at(path, "must be an array of restriction objects, e.g. [{\"schema_id\": \"...\"}]")
		return nil
	}
	out := make([]map[string]string, 0, arr.len())
	for it := arr.elems(); it.next(); {
		p := path.elem(it.index())
		obj := it.value()
		if !obj.is(kindObject) {
			c.at(&p, "must be an object")
			continue
		}
		if obj.len() == 0 {
			c.at(&p, "must not be empty (an empty restriction would match any credential)")
			continue
		}
		r := make(map[string]string, obj.len())
		for m := obj.members(); m.next(); {
			k := m.key()
			s, ok := m.value().str()
			if !ok {
				c.atKey(&p, k, "must be a string")
				continue
			}
			if problem := restrictionProblem(k, s); problem != "" {
				c.atKey(&p, k, problem)
				continue
			}
			r[k] = s
		}
		out = append(out, r)
	}
	return out
}

// restrictionProblem says what is wrong with one restriction entry, or "".
func restrictionProblem(k, val string) string {
	if rest, ok := strings.CutPrefix(k, "attr::"); ok {
		if name, ok := strings.CutSuffix(rest, "::value"); ok && name != "" {
			return "" // any value, the empty string included, can be matched
		}
		if name, ok := strings.CutSuffix(rest, "::marker"); ok && name != "" {
			if val != "1" {
				return `must be "1" (the attribute must be present)`
			}
			return ""
		}
		return "not an AnonCreds restriction key: use attr::<name>::value or attr::<name>::marker"
	}
	check, known := restrictionKeys[k]
	if !known {
		return "not an AnonCreds restriction key (allowed: " + restrictionKeyList + ")"
	}
	if strings.TrimSpace(val) == "" {
		return "must not be empty"
	}
	if check == nil {
		return ""
	}
	if problem, ok := check(val); !ok {
		return problem
	}
	return ""
}
