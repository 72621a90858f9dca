package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/ohler55/ojg/jp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/proofgate/proofgate/internal/pefilter"
)

// maxCachedFilters bounds the memory of filterCache; it is emptied when
// full, which is fine for a cache of what a few client apps send.
const maxCachedFilters = 512

// filterCache remembers filters that compiled, by their canonical JSON
// (encoding/json sorts keys): clients send the same definitions over and
// over, and compiling one costs a few thousand allocations, because each
// compile loads the draft metaschema afresh.
type filterCache struct {
	mu    sync.Mutex
	valid map[string]struct{}
}

func (fc *filterCache) has(k string) bool {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	_, ok := fc.valid[k]
	return ok
}

func (fc *filterCache) add(k string) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.valid == nil || len(fc.valid) >= maxCachedFilters {
		fc.valid = make(map[string]struct{})
	}
	fc.valid[k] = struct{}{}
}

// compileFilter checks that a constraints.fields[].filter compiles with
// pefilter, as the local verifier will compile it: a valid JSON Schema
// (draft-07 unless it says otherwise, as DIF specifies), regular
// expressions that compile, no references outside itself, and date bounds
// (v1 string minimum/maximum beside format date, v2 formatMinimum…) that
// are dates.
func (fc *filterCache) compileFilter(filter any, path string, c *collector) {
	canon, err := json.Marshal(filter)
	cacheable := err == nil && len(canon) <= 4096
	if cacheable && fc.has(string(canon)) {
		return
	}
	if fc.compile(filter, path, c) && cacheable {
		fc.add(string(canon))
	}
}

func (fc *filterCache) compile(filter any, path string, c *collector) bool {
	_, err := pefilter.Compile(filter)
	if err == nil {
		return true
	}
	var (
		bound   *pefilter.BoundError
		invalid *jsonschema.SchemaValidationError
		regex   *jsonschema.InvalidRegexError
		load    *jsonschema.LoadURLError
	)
	switch {
	case errors.As(err, &bound):
		c.at(pointerPath(path, filter, "#"+bound.Pointer), bound.Message)
	case errors.As(err, &invalid):
		schemaProblems(invalid.Err, path, filter, nil, c)
	case errors.As(err, &regex):
		c.atf(pointerPath(path, filter, regex.URL), "is not a valid regular expression: %v", regex.Err)
	case errors.As(err, &load):
		c.add(path, "must not refer to other schemas ($ref and $schema must stay inside the filter or name a standard draft)")
	default:
		c.add(path, "is not a valid JSON Schema: "+strings.ReplaceAll(err.Error(), "urn:proofgate:filter", "filter"))
	}
	return false
}

// pointerPath turns a schema location "<filterURL>#/a/b" into the path of
// a field under path, or path itself when it is elsewhere.
func pointerPath(path string, filter any, loc string) *pathNode {
	t := newSchemaTranslator(path, filter, nil)
	_, frag, ok := strings.Cut(loc, "#")
	if !ok || frag == "" || frag == "/" {
		return t.base
	}
	if unescaped, err := url.PathUnescape(frag); err == nil {
		frag = unescaped
	}
	var toks []string
	for _, t := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		toks = append(toks, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
	}
	return t.path(toks)
}

// jsonPathProblem checks one constraints.fields[].path entry: a JSONPath
// expression from the root ($), as DIF requires.
func jsonPathProblem(s string) string {
	if !strings.HasPrefix(s, "$") {
		return "must be a JSONPath expression starting with $"
	}
	if err := parseJSONPath(s); err != nil {
		return "is not a valid JSONPath expression: " + err.Error()
	}
	return ""
}

// parseJSONPath parses with ojg, turning a panic on odd input into an
// error: validation must never take the server down.
func parseJSONPath(s string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	_, err = jp.ParseString(s)
	return err
}
