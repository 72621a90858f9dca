package pexcheck

import (
	"fmt"
	"reflect"
	"time"

	"github.com/proofgate/proofgate/internal/jsonpath"
	"github.com/proofgate/proofgate/internal/pefilter"
	"github.com/proofgate/proofgate/internal/textcut"
)

// Which credential a descriptor_map entry names.

func mapped(m []peMapping, id string) bool {
	for _, e := range m {
		if e.ID == id {
			return true
		}
	}
	return false
}

// selection is what selectCredential needs of the whole presentation.
type selection struct {
	// root is the presentation (a JWT presentation's payload): what an
	// entry with path_nested must select.
	root map[string]any
	// vpClaim is a JWT presentation's vp claim, nil for a JSON-LD one.
	// Its entries' paths are read from the payload (as OpenID4VP's
	// examples write them: $.vp.verifiableCredential[0]) and, where that
	// selects nothing, from the vp claim, where the presentation_submission
	// is: Credo 0.5.19 (Sphereon's PEX) writes $.verifiableCredential[0]
	// for the VP it signs (TestRealCredoFormData). Both name the same
	// listed credentials, so reading both lets no unlisted value in.
	vpClaim map[string]any
	// creds are the presentation's verifiableCredential entries: the
	// credentials a verifier checks, so the only ones an entry may name.
	creds []any
	// jwts are the JWT credentials decoded so far.
	jwts map[string]decodedJWT
}

// listedCredentials are the entries of a presentation's
// verifiableCredential (in vpClaim, a JWT presentation's vp claim, when
// there is one): one value or an array.
func listedCredentials(vp, vpClaim map[string]any) []any {
	holder := vp
	if vpClaim != nil {
		holder = vpClaim
	}
	switch c := holder["verifiableCredential"].(type) {
	case nil:
		return nil
	case []any:
		return c
	default:
		return []any{c}
	}
}

// same reports whether a and b are the very same object.
func same(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// listed reports whether v is one of creds: the very object (not an equal
// copy elsewhere in the presentation), or a JWT equal to a listed one.
func listed(v any, creds []any) bool {
	for _, c := range creds {
		switch x := v.(type) {
		case map[string]any:
			if m, ok := c.(map[string]any); ok && same(m, x) {
				return true
			}
		case string:
			if s, ok := c.(string); ok && s == x {
				return true
			}
		}
	}
	return false
}

// decodedJWT is a JWT credential as selectCredential reads it: its
// claims, with the vc claim's members beside them, and its header's alg
// (for the definition's format), or why it cannot be read (a text that
// follows "selects a string that").
type decodedJWT struct {
	cred    map[string]any
	alg     string
	problem string
}

// selectCredential follows a descriptor_map entry (and its path_nested)
// to the credential it names, and tells what that credential is (its
// shape, for the definition's format). Its paths are the prover's and
// must be plain (jsonpath.ParsePlain): one step per segment, one value.
// What it names must be one of the presentation's verifiableCredential
// entries: a verifier checks those, and a credential elsewhere (under a
// key the prover's context maps anywhere, or in a JCS-signed document)
// would answer the request unchecked. A level with path_nested must
// select the presentation itself: it names the presentation's format
// (ldp_vp, jwt_vp), which is judged on the presentation, the one
// envelope a DIDComm attachment holds. JWT credentials are decoded once
// each.
func selectCredential(root any, m peMapping, where string, depth int, sel *selection) (map[string]any, shape, string) {
	if depth > maxNesting {
		return nil, shape{}, "path_nested is nested too deep"
	}
	p, err := jsonpath.ParsePlain(m.Path)
	if err != nil {
		return nil, shape{}, fmt.Sprintf("%s.path %q is not a plain JSONPath ($ followed by .name, ['name'] or [index] steps, at most %d characters): %v",
			where, textcut.Prefix(m.Path, 80), jsonpath.MaxPlainLength, err)
	}
	// A plain path selects at most one value in len(path) steps.
	vals, err := p.Get(root, jsonpath.NewBudget(jsonpath.MaxPlainLength+1, 1, time.Time{}))
	if err != nil {
		return nil, shape{}, fmt.Sprintf("%s.path %q: %v", where, m.Path, err)
	}
	if r, ok := root.(map[string]any); len(vals) == 0 && sel.vpClaim != nil && ok && same(r, sel.root) {
		// Relative to the vp claim instead (selection.vpClaim).
		if vals, err = p.Get(sel.vpClaim, jsonpath.NewBudget(jsonpath.MaxPlainLength+1, 1, time.Time{})); err != nil {
			return nil, shape{}, fmt.Sprintf("%s.path %q: %v", where, m.Path, err)
		}
	}
	if len(vals) == 0 {
		return nil, shape{}, fmt.Sprintf("path %q selects nothing in the presentation", m.Path)
	}
	if m.PathNested != nil {
		// The presentation itself: a JWT's payload, or the vp claim its
		// paths may be read from.
		if v, ok := vals[0].(map[string]any); !ok || !same(v, sel.root) && (sel.vpClaim == nil || !same(v, sel.vpClaim)) {
			return nil, shape{}, fmt.Sprintf("%s.path %q has a path_nested, so it must select the presentation itself (\"$\")", where, m.Path)
		}
		return selectCredential(vals[0], *m.PathNested, where+".path_nested", depth+1, sel)
	}
	if !listed(vals[0], sel.creds) {
		return nil, shape{}, fmt.Sprintf("path %q selects a value that is not one of the presentation's verifiableCredential entries", m.Path)
	}
	switch c := vals[0].(type) {
	case map[string]any:
		return c, objectShape(c), ""
	case string:
		d, ok := sel.jwts[c]
		if !ok {
			d = decodeJWTCredential(c)
			sel.jwts[c] = d
		}
		if d.problem != "" {
			return nil, shape{}, fmt.Sprintf("path %q selects a string that %s", m.Path, d.problem)
		}
		return d.cred, shape{jwt: true, alg: d.alg}, ""
	default:
		return nil, shape{}, fmt.Sprintf("path %q does not select a credential (an object or a JWT)", m.Path)
	}
}

// decodeJWTCredential reads a jwt_vc: its payload (vc claim inside) is
// what fields are read from; the verifier checks its signature. Its
// numbers must be within pefilter's bounds, as the presentation's.
func decodeJWTCredential(token string) decodedJWT {
	payload, problem := jwtPayload(token)
	if problem != "" {
		return decodedJWT{problem: problem}
	}
	if err := pefilter.CheckNumbers(payload); err != nil {
		return decodedJWT{problem: "is a JWT whose payload " + numberProblem(err)}
	}
	alg := jwtHeaderAlg(token)
	vc, ok := payload["vc"].(map[string]any)
	if !ok {
		return decodedJWT{cred: payload, alg: alg}
	}
	merged := make(map[string]any, len(vc)+len(payload))
	for k, v := range vc {
		merged[k] = v
	}
	for k, v := range payload {
		merged[k] = v // $.vc.… paths work too
	}
	return decodedJWT{cred: merged, alg: alg}
}
