package validate

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// peBodyWith is a presentationExchange body whose definition is def (a
// definition object's members, without braces).
func peBodyWith(def string) string {
	return `{"isShortenUrl":true,"proofFormats":{},"presentationDefinition":{` + def + `}}`
}

// oneFilter is a definition of one descriptor whose one field has filter.
func oneFilter(filter string) string {
	return peBodyWith(`"input_descriptors":[{"id":"d","constraints":{"fields":[{"path":["$.a"],"filter":` + filter + `}]}}]`)
}

// nestedProperties is a filter of depth levels of properties, each level
// with width members named by long keys (the last one going deeper).
func nestedProperties(depth, width, keyLen int, leaf string) string {
	var b strings.Builder
	var rec func(d int)
	rec = func(d int) {
		if d == depth {
			b.WriteString(leaf)
			return
		}
		b.WriteString(`{"type":"object","properties":{`)
		for w := range width {
			if w > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + strconv.Itoa(w) + strings.Repeat("K", keyLen) + `":`)
			if w == width-1 {
				rec(d + 1)
			} else {
				b.WriteString(leaf)
			}
		}
		b.WriteString(`}}`)
	}
	rec(0)
	return b.String()
}

// peCostBodies are bodies built to make the definition checks cost much:
// long keys in filters, many filters, many problems. Each is about 100 to
// 230 KB; before is what each allocated, in times its size, before the
// filter limits, lazy paths and split schema validation. dense marks the
// bodies of thousands of field objects the DIF schema validates: the
// schema library allocates about 800 bytes for each (a field can be 17
// bytes), and the definition's conversion to Go values about 20 times its
// size, so those cost up to twice as much as the others may.
func peCostBodies() []struct {
	name, body string
	before     float64
	dense      bool
} {
	fields := func(n int, field func(i int) string) string {
		return peBodyWith(`"input_descriptors":[{"id":"d","constraints":{"fields":[` + members(n, field) + `]}}]`)
	}
	requirements := `"input_descriptors":[{"id":"d","group":["A"],"constraints":{}}],"submission_requirements":`
	return []struct {
		name, body string
		before     float64
		dense      bool
	}{
		{name: "long keys deep in a filter", body: oneFilter(nestedProperties(27, 1, 5000, `{}`)), before: 229},
		{name: "long keys wide and deep in a filter", body: oneFilter(nestedProperties(27, 2, 2500, `{}`)), before: 154},
		{name: "long keys at several depths in a filter", body: oneFilter(nestedProperties(8, 4, 4000, `{}`)), before: 38},
		{name: "long keys in a filter, each a problem", body: oneFilter(nestedProperties(8, 4, 4000, `{"type":5}`)), before: 22},
		// The compiler keeps each location percent-escaped: é is 6 bytes there.
		{name: "escaped long keys deep over many members", body: oneFilter(strings.ReplaceAll(nestedProperties(26, 1, 1250,
			`{"properties":{`+members(300, func(i int) string { return `"` + strconv.Itoa(i) + `":{}` })+`}}`), strings.Repeat("K", 1250), strings.Repeat("é", 1250))),
			before: 9443},
		{name: "escaped long keys over many members, within 32 levels", body: oneFilter(strings.ReplaceAll(nestedProperties(14, 1, 125,
			`{"properties":{`+members(8000, func(i int) string { return `"` + strconv.Itoa(i) + `":{}` })+`}}`), strings.Repeat("K", 125), strings.Repeat("é", 125))),
			before: 9110},
		{name: "long keys deep in a valid filter", body: oneFilter(nestedProperties(20, 1, 6000, `{"type":"string"}`)), before: 174},
		{name: "many short keys deep in a filter", body: oneFilter(nestedProperties(26, 1, 1,
			`{"properties":{`+members(10_000, func(i int) string { return `"k` + strconv.Itoa(i) + `":{}` })+`}}`)), before: 763},
		{name: "many filters", body: fields(3000, func(i int) string { return `{"path":["$.a"],"filter":{"const":` + strconv.Itoa(i) + `}}` }),
			before: 235, dense: true},
		{name: "many filters under long keys", body: fields(100, func(i int) string {
			return `{"path":["$.a"],"filter":` + nestedProperties(4, 1, 300, `{"const":`+strconv.Itoa(i)+`}`) + `}`
		}), before: 56},
		{name: "many bad filters", body: fields(3000, func(i int) string { return `{"path":["$.a"],"filter":{"type":` + strconv.Itoa(i) + `}}` }),
			before: 230, dense: true},
		{name: "many valid fields", body: fields(8000, func(int) string { return `{"path":["$.a"]}` }), before: 113, dense: true},
		{name: "empty descriptors", body: peBodyWith(`"input_descriptors":[{}` + strings.Repeat(`,{}`, 40_000) + `]`), before: 394},
		{name: "descriptors of empty fields", body: peBodyWith(`"input_descriptors":[` +
			members(5000, func(i int) string { return `{"id":"` + strconv.Itoa(i) + `","constraints":{"fields":[{},{}]}}` }) + `]`), before: 100},
		{name: "group of numbers", body: peBodyWith(`"input_descriptors":[{"id":"d","group":[1` + strings.Repeat(`,1`, 60_000) + `],"constraints":{}}]`), before: 254},
		{name: "path of numbers", body: fields(1, func(int) string { return `{"path":[1` + strings.Repeat(`,1`, 60_000) + `]}` }), before: 278},
		{name: "alg of numbers", body: peBodyWith(`"format":{"jwt":{"alg":[1` + strings.Repeat(`,1`, 60_000) + `]}},"input_descriptors":[{"id":"d","constraints":{}}]`), before: 270},
		{name: "descriptor alg of numbers", body: peBodyWith(`"input_descriptors":[{"id":"d","format":{"jwt":{"alg":[1` + strings.Repeat(`,1`, 60_000) + `]}},"constraints":{}}]`), before: 270},
		{name: "valid group", body: peBodyWith(`"input_descriptors":[{"id":"d","group":["a"` + strings.Repeat(`,"a"`, 40_000) + `],"constraints":{}}]`), before: 81},
		{name: "many unknown formats", body: peBodyWith(`"format":{` + members(12_000, func(i int) string { return `"f` + strconv.Itoa(i) + `":{}` }) +
			`},"input_descriptors":[{"id":"d","constraints":{}}]`), before: 33},
		{name: "empty requirements", body: peBodyWith(requirements + `[{}` + strings.Repeat(`,{}`, 40_000) + `]`), before: 297},
		{name: "nested requirements", body: peBodyWith(requirements + strings.Repeat(`[{"rule":"pick","from_nested":`, 28) +
			`[{}` + strings.Repeat(`,{}`, 40_000) + `]` + strings.Repeat(`}]`, 28)), before: 954},
		{name: "nested requirements of numbers", body: peBodyWith(requirements + strings.Repeat(`[{"rule":"pick","from_nested":`, 28) +
			`[1` + strings.Repeat(`,1`, 60_000) + `]` + strings.Repeat(`}]`, 28)), before: 1418},
		{name: "wide nested requirements", body: peBodyWith(requirements + `[` + members(20, func(int) string {
			return `{"rule":"pick","from_nested":[` + members(20, func(int) string {
				return `{"rule":"pick","from_nested":[{}` + strings.Repeat(`,{}`, 100) + `]}`
			}) + `]}`
		}) + `]`), before: 305},
	}
}

// A definition built to cost much, by its filters or its problems, costs
// a small multiple of its size, as the rest of a body does. (Before: up
// to 1418 times; see peCostBodies.)
func TestPECostIsBoundedByBody(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation bounds are measured without the race detector (see raceEnabled)")
	}
	for _, tc := range peCostBodies() {
		t.Run(tc.name, func(t *testing.T) {
			factor := 64.0 // bytes allocated per byte of body, at most
			if tc.dense {
				factor = 128
			}
			v := newValidator(t, Options{})
			bytes, problems := allocated(v, "presentationExchange", tc.body)
			times := float64(bytes) / float64(len(tc.body))
			t.Logf("%d bytes of body, %d allocated (%.1f times, before %.0f), %d problems listed", len(tc.body), bytes, times, tc.before, len(problems))
			if times > factor {
				t.Errorf("%d bytes of body allocated %d bytes, %.0f times as much (at most %.0f)", len(tc.body), bytes, times, factor)
			}
			if len(problems) > maxProblems+1 {
				t.Errorf("%d problems listed", len(problems))
			}
		})
	}
}

// Filters past pefilter's limits are refused naming the filter, and so are the filters past what a
// definition's filters may have together; the others are still checked.
func TestFilterLimitProblems(t *testing.T) {
	v := newValidator(t, Options{})
	const f0 = "presentationDefinition.input_descriptors[0].constraints.fields[0].filter"
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"a long key", oneFilter(`{"properties":{"a":{"properties":{"` + strings.Repeat("k", 300) + `":{}}}}}`),
			[]string{f0 + ": has a key of 300 bytes: a filter's keys must be at most 256 bytes"}},
		{"deep", oneFilter(nestedProperties(17, 1, 3, `{}`)), []string{f0 + ": nested deeper than 32 levels"}},
		{"large", oneFilter(`{"enum":["` + strings.Repeat("x", 17000) + `"]}`), []string{f0 + ": must be at most 16384 bytes of JSON"}},
		{"many values", oneFilter(`{"enum":[` + members(1100, strconv.Itoa) + `]}`),
			[]string{f0 + ": must have at most 1024 JSON values (each filter and every value inside it)"}},
		{"long paths", oneFilter(nestedProperties(14, 1, 250, `{"enum":[`+members(40, strconv.Itoa)+`]}`)),
			[]string{f0 + ": must have at most 65536 bytes of paths (the JSON pointers of all the values inside, added up: keep long keys few and near the top)"}},
		{"large patterns", oneFilter(`{"pattern":"a{1000}b{1000}c{1000}d{1000}e{1000}"}`),
			[]string{f0 + ": must have at most 4096 characters of regular expressions, counted repetitions written out (x{n} counts x n times)"}},
		{"many filters", peBodyWith(`"input_descriptors":[` + members(20, func(d int) string {
			return `{"id":"d` + strconv.Itoa(d) + `","constraints":{"fields":[` +
				members(30, func(i int) string { return `{"path":["$.a"],"filter":{"const":` + strconv.Itoa(i) + `}}` }) + `]}}`
		}) + `]`),
			// The 513th filter, the third of the 18th descriptor.
			[]string{"presentationDefinition.input_descriptors[17].constraints.fields[2].filter: goes past what a definition's filters may have together: at most 1024 JSON values (each filter and every value inside it)"}},
		{"too many descriptors", peBodyWith(`"input_descriptors":[` + members(MaxInputDescriptors+1, func(d int) string {
			return `{"id":"d` + strconv.Itoa(d) + `","constraints":{"fields":[{"path":["$.a"]}]}}`
		}) + `]`),
			[]string{"presentationDefinition.input_descriptors: has 65 input descriptors; at most 64 are taken"}},
		{"too many fields", peBodyWith(`"input_descriptors":[{"id":"d","constraints":{"fields":[` +
			members(MaxFields+1, func(int) string { return `{"path":["$.a"]}` }) + `]}}]`),
			[]string{"presentationDefinition.input_descriptors[0].constraints.fields: has 33 fields; at most 32 are taken"}},
		{"a large filter beside a bad one", peBodyWith(`"input_descriptors":[{"id":"d","constraints":{"fields":[` +
			`{"path":["$.a"],"filter":{"enum":["` + strings.Repeat("x", 17000) + `"]}},{"path":["$.a"],"filter":{"type":"strin"}}]}}]`),
			[]string{f0 + ": must be at most 16384 bytes of JSON",
				`presentationDefinition.input_descriptors[0].constraints.fields[1].filter.type: matches none of the allowed forms (must be an array | must be one of "array", "boolean", "integer", "null", "number", "object", "string")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.OOB("presentationExchange", []byte(tc.body))
			sameProblems(t, problems(t, err), tc.want)
		})
	}
	// At the limits, accepted.
	for _, ok := range []string{
		oneFilter(`{"properties":{"` + strings.Repeat("k", 256) + `":{}}}`),
		oneFilter(nestedProperties(15, 1, 3, `{"type":"string"}`)),
		oneFilter(`{"enum":[` + members(1000, strconv.Itoa) + `]}`),
	} {
		if _, err := v.OOB("presentationExchange", []byte(ok)); err != nil {
			t.Errorf("%.100s… refused: %v", ok, err)
		}
	}
}

// Validating a definition a part at a time (checkSchema) finds what one
// call of the library finds, element paths included, when there are
// fewer problems than the list keeps.
func TestSplitSchemaChecksFindTheSame(t *testing.T) {
	v := newValidator(t, Options{})
	field := func(i int) any {
		switch i {
		case 0, 255, 256, 257, 699:
			return map[string]any{"path": []any{"$.a", json.Number("1")}, "purpose": json.Number("2"), "x" + strconv.Itoa(i): true}
		case 400:
			return map[string]any{"predicate": "sometimes"}
		case 500:
			return "field"
		}
		return map[string]any{"path": []any{"$.a"}}
	}
	var fieldList []any
	for i := range 700 {
		fieldList = append(fieldList, field(i))
	}
	group := []any{}
	for i := range 1000 {
		if i == 3 || i == 999 {
			group = append(group, json.Number("7"))
		} else {
			group = append(group, "g")
		}
	}
	descriptor := map[string]any{"id": "d", "group": group, "format": map[string]any{"jwt": map[string]any{"alg": []any{"ES256", true}}},
		"constraints": map[string]any{"fields": fieldList, "limit_disclosure": "always"}}
	// Requirements nested 20 deep, 30 at each level, one bad at each.
	var nest func(depth int) []any
	nest = func(depth int) []any {
		var reqs []any
		for i := range 30 {
			r := map[string]any{"rule": "pick", "from": "A"}
			if i == depth%30 {
				r = map[string]any{"rule": "most", "count": "2", "from": "A"}
			}
			if i == 29 && depth > 0 {
				r = map[string]any{"rule": "all", "from_nested": nest(depth - 1)}
			}
			reqs = append(reqs, r)
		}
		return reqs
	}
	def := map[string]any{"id": "x", "input_descriptors": []any{}, "submission_requirements": nest(20)}
	for _, tc := range []struct {
		name   string
		schema func() *peSchemas
		inst   map[string]any
		top    bool
	}{
		{"descriptor", nil, descriptor, false},
		{"requirements", nil, def, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := v.pe.v2
			if tc.top {
				s = v.pe.top
			}
			base := pathNode{full: "d"}
			var whole, split collector
			if err := s.Validate(tc.inst); err != nil {
				schemaProblems(err, &base, tc.inst, nil, &whole)
			}
			if countValues(tc.inst, maxSchemaValues+1) <= maxSchemaValues {
				t.Fatal("small enough for one call")
			}
			checkSchema(s, tc.inst, &base, nil, &split)
			w, g := whole.errors(), split.errors()
			if len(w) == 0 || len(w) >= maxProblems {
				t.Fatalf("%d problems in one call", len(w))
			}
			t.Logf("%d problems, the first %q", len(w), w[0])
			if strings.Join(w, "\n") != strings.Join(g, "\n") {
				t.Errorf("one call:\n%s\nsplit:\n%s", strings.Join(w, "\n"), strings.Join(g, "\n"))
			}
		})
	}
}
