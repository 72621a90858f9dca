package validate

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A valid indy body and a valid presentationExchange body; test rows edit
// copies of them.
const (
	indyBody = `{
		"isShortenUrl": true,
		"proofFormats": {"indy": {
			"name": "proof of age",
			"version": "1.0",
			"requested_attributes": {
				"attr1": {"name": "name", "restrictions": [{"schema_id": "WgWxqztrNooG92RXvxSTWv:2:schema_name:1.0", "cred_def_id": "WgWxqztrNooG92RXvxSTWv:3:CL:20:tag"}]}
			},
			"requested_predicates": {
				"pred1": {"name": "age", "p_type": ">=", "p_value": 18}
			}
		}}
	}`
	peBody = `{
		"isShortenUrl": false,
		"proofFormats": {},
		"presentationDefinition": {
			"id": "32f54163-7166-48f1-93d8-ff217bdb0653",
			"input_descriptors": [{
				"id": "citizenship",
				"name": "EU Driver's License",
				"purpose": "We need your name",
				"constraints": {"fields": [
					{"path": ["$.credentialSubject.givenName", "$.vc.credentialSubject.givenName"], "filter": {"type": "string", "pattern": "^[A-Z]"}}
				]}
			}]
		}
	}`
)

// edit sets (or, with del, removes) the value at a path of keys and array
// indexes in a decoded body.
type edit struct {
	path string // dotted; array indexes as numbers
	val  any
	del  bool
}

func set(path string, val any) edit { return edit{path: path, val: val} }
func del(path string) edit          { return edit{path: path, del: true} }

// raw marks a value given as JSON text.
type raw string

func with(t testing.TB, base string, edits ...edit) string {
	t.Helper()
	var doc any
	if err := json.Unmarshal([]byte(base), &doc); err != nil {
		t.Fatal(err)
	}
	for _, e := range edits {
		val := e.val
		if r, ok := val.(raw); ok {
			if err := json.Unmarshal([]byte(r), &val); err != nil {
				t.Fatalf("edit %s: %v", e.path, err)
			}
		}
		doc = apply(t, doc, strings.Split(e.path, "."), val, e.del)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func apply(t testing.TB, node any, path []string, val any, remove bool) any {
	t.Helper()
	switch n := node.(type) {
	case map[string]any:
		if len(path) == 1 {
			if remove {
				delete(n, path[0])
			} else {
				n[path[0]] = val
			}
			return n
		}
		child, ok := n[path[0]]
		if !ok {
			child = map[string]any{}
		}
		n[path[0]] = apply(t, child, path[1:], val, remove)
		return n
	case []any:
		i, err := strconv.Atoi(path[0])
		if err != nil || i >= len(n) {
			t.Fatalf("bad index %q", path[0])
		}
		if len(path) == 1 {
			n[i] = val
			return n
		}
		n[i] = apply(t, n[i], path[1:], val, remove)
		return n
	}
	t.Fatalf("cannot walk into %T at %v", node, path)
	return nil
}

func problems(t testing.TB, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("error %v is %T, not Errors", err, err)
	}
	return errs
}

// sameProblems requires exactly the wanted messages, in any order.
func sameProblems(t testing.TB, got, want []string) {
	t.Helper()
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Errorf("problems:\n got  %q\n want %q", g, w)
	}
}

func newValidator(t testing.TB, opts Options) *Validator {
	t.Helper()
	v, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
