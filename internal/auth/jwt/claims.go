package jwt

import "strings"

// orgs maps the configured claim onto org → roles. A missing or malformed
// claim yields no orgs (the caller is then refused with 403, not 401: the
// token itself was good). Roles are never nil, so a token never counts as
// bound to an org as a whole.
func (p *Provider) orgs(claims map[string]any) map[string][]string {
	out := map[string][]string{}
	v, ok := lookupClaim(claims, p.OrgsClaim)
	if !ok {
		return out
	}
	switch p.OrgsFormat {
	case FormatKeycloak:
		m, _ := v.(map[string]any)
		for org, entry := range m {
			obj, _ := entry.(map[string]any)
			addRoles(out, org, stringList(obj["roles"]))
		}
	case FormatMap:
		m, _ := v.(map[string]any)
		for org, entry := range m {
			if obj, ok := entry.(map[string]any); ok {
				entry = obj["roles"]
			}
			addRoles(out, org, stringList(entry))
		}
	case FormatList:
		var shared []string
		if rv, ok := lookupClaim(claims, p.RolesClaim); ok {
			shared = stringList(rv)
		}
		for _, e := range stringList(v) {
			org, role, hasRole := strings.Cut(e, ":")
			if hasRole {
				addRoles(out, org, []string{role})
			} else {
				addRoles(out, org, shared)
			}
		}
	}
	return out
}

func addRoles(out map[string][]string, org string, roles []string) {
	if org == "" {
		return
	}
	cur, ok := out[org]
	if !ok {
		cur = []string{}
	}
	for _, r := range roles {
		if r != "" {
			cur = append(cur, r)
		}
	}
	out[org] = cur
}

// stringList reads a claim value as a list of strings: a JSON array of
// strings (other elements ignored) or a single string.
func stringList(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// lookupClaim finds a claim by its exact name first (namespaced claims
// such as "https://example.com/orgs" contain dots), then as a dotted path
// through nested objects.
func lookupClaim(claims map[string]any, name string) (any, bool) {
	if v, ok := claims[name]; ok {
		return v, true
	}
	var cur any = claims
	for part := range strings.SplitSeq(name, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}
