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

// filterBudget holds the filters of one definition together to the
// limits pefilter sets one filter (values, paths, patterns): compiling
// costs a few KiB per value, so a definition of many small filters would
// otherwise cost hundreds of times its size. Cached filters count too, so
// that the answer to a body does not depend on the cache.
type filterBudget struct {
	sum  pefilter.Size
	over bool // past the limits: the definition's later filters are not compiled
}

// compileFilter checks that a constraints.fields[].filter compiles with
// pefilter, as the local verifier will compile it: within pefilter's
// limits (alone, and with the definition's filters before it), a valid
// JSON Schema (draft-07 unless it says otherwise, as DIF specifies),
// regular expressions that compile, no references ($ref, even inside
// itself: a filter that refers to itself costs the verifier work
// exponential in the prover's data), and date bounds (v1 string
// minimum/maximum beside format date, v2 formatMinimum…) that are dates.
// Once c is full, filters are not checked: their problems would only be
// counted.
func (fc *filterCache) compileFilter(filter any, path *pathNode, budget *filterBudget, c *collector) {
	if budget.over || c.full() {
		return
	}
	size, err := pefilter.Measure(filter)
	if limit, ok := err.(*pefilter.LimitError); ok {
		c.at(path, limit.Message)
		return
	}
	budget.sum.Add(size)
	if over := budget.sum.Over(); over != "" {
		budget.over = true
		c.at(path, "goes past what a definition's filters may have together: "+over)
		return
	}
	canon, err := json.Marshal(filter)
	cacheable := err == nil && len(canon) <= 4096
	if cacheable && fc.has(string(canon)) {
		return
	}
	if fc.compile(filter, path, c) && cacheable {
		fc.add(string(canon))
	}
}

func (fc *filterCache) compile(filter any, path *pathNode, c *collector) bool {
	_, err := pefilter.Compile(filter)
	if err == nil {
		return true
	}
	var (
		bound   *pefilter.BoundError
		ref     *pefilter.RefError
		invalid *jsonschema.SchemaValidationError
		regex   *jsonschema.InvalidRegexError
		load    *jsonschema.LoadURLError
	)
	switch {
	case errors.As(err, &bound):
		c.at(pointerPath(path, filter, "#"+bound.Pointer), bound.Message)
	case errors.As(err, &ref):
		c.at(pointerPath(path, filter, "#"+ref.Pointer), ref.Message())
	case errors.As(err, &invalid):
		schemaProblems(invalid.Err, path, filter, nil, c)
	case errors.As(err, &regex):
		c.atf(pointerPath(path, filter, regex.URL), "is not a valid regular expression: %v", regex.Err)
	case errors.As(err, &load):
		c.at(path, "must not refer to other schemas ($ref is not allowed, and $schema must name a standard draft)")
	default:
		if c.full() {
			c.drop()
			return false
		}
		c.at(path, "is not a valid JSON Schema: "+strings.ReplaceAll(err.Error(), "urn:proofgate:filter", "filter"))
	}
	return false
}

// pointerPath turns a schema location "<filterURL>#/a/b" into the path of
// a field under path, or path itself when it is elsewhere.
func pointerPath(path *pathNode, filter any, loc string) *pathNode {
	t := schemaTranslator{base: path, inst: filter}
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
