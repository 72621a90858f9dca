package validate

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// body builders for the tests of this file.

// members joins n members made by member(i) with commas.
func members(n int, member func(i int) string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(member(i))
	}
	return b.String()
}

// indyWith is a valid indy body whose proofFormats.indy holds indy (an
// object's members, without braces).
func indyWith(indy string) string {
	return `{"isShortenUrl":true,"proofFormats":{"indy":{"name":"n","version":"1.0",` + indy + `}}}`
}

// allocated is the memory CheckOOBHeld allocates for body, the validator
// made beforehand.
func allocated(v *Validator, requestType, body string) (uint64, Errors) {
	b := []byte(body)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, problems, held := v.CheckOOBHeld(requestType, b)
	runtime.ReadMemStats(&after)
	problems = append(Errors(nil), problems...) // read before release
	held.Release()
	return after.TotalAlloc - before.TotalAlloc, problems
}

// A body built to fail costs a small multiple of its size: the problems
// past maxProblems are counted, not formatted, and a path under a long key
// is formatted only as far as it is shown. (Before: every duplicate under
// a 50 KB key formatted the whole path, 3.4 GB for 110 KB.)
func TestProblemCostIsBoundedByBody(t *testing.T) {
	const factor = 64 // bytes allocated per byte of body, at most
	long := strings.Repeat("K", 50_000)
	longQuoted := strings.Repeat("K.", 25_000) // quoted in paths
	dups := func(n int) string { return `{"a":0` + strings.Repeat(`,"a":0`, n) + `}` }
	for _, tc := range []struct {
		name, requestType, body string
	}{
		{"one key repeated under a long key", "presentationExchange",
			`{"isShortenUrl":true,"proofFormats":{},"` + long + `":` + dups(10_000) + `}`},
		{"one key repeated under a long quoted key", "presentationExchange",
			`{"isShortenUrl":true,"proofFormats":{},"` + longQuoted + `":` + dups(10_000) + `}`},
		{"many keys repeated under a long key", "presentationExchange",
			`{"isShortenUrl":true,"proofFormats":{},"` + long + `":{` +
				members(10_000, func(i int) string { return `"` + strconv.Itoa(i%5000) + `":0` }) + `}}`},
		{"unknown keys", "indy",
			`{"isShortenUrl":true,` + members(100_000, func(i int) string { return `"` + strconv.Itoa(i) + `":0` }) + `}`},
		{"unknown keys of a long-named attribute", "indy",
			indyWith(`"requested_attributes":{"` + long + `":{"name":"x",` +
				members(20_000, func(i int) string { return `"` + strconv.Itoa(i) + `":0` }) + `}}`)},
		{"repeated attribute names", "indy",
			indyWith(`"requested_attributes":{"a":{"names":["x"` + strings.Repeat(`,"x"`, 200_000) + `]}}`)},
		{"attribute names not strings", "indy",
			indyWith(`"requested_attributes":{"a":{"names":[1` + strings.Repeat(`,1`, 300_000) + `]}}`)},
		{"restrictions not objects", "indy",
			indyWith(`"requested_attributes":{"a":{"name":"x","restrictions":[1` + strings.Repeat(`,1`, 300_000) + `]}}`)},
		{"recipients not strings", "indy",
			`{"isShortenUrl":true,"proofFormats":{"indy":{"name":"n","version":"1.0","requested_attributes":{"a":{"name":"x"}}}},` +
				`"emailId":[1` + strings.Repeat(`,1`, 300_000) + `]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := newValidator(t, Options{})
			bytes, problems := allocated(v, tc.requestType, tc.body)
			if len(problems) == 0 {
				t.Fatal("accepted")
			}
			t.Logf("%d bytes of body, %d allocated (%.1f times), %d problems listed", len(tc.body), bytes, float64(bytes)/float64(len(tc.body)), len(problems))
			if bytes > factor*uint64(len(tc.body)) {
				t.Errorf("%d bytes of body allocated %d bytes, %d times as much (at most %d)",
					len(tc.body), bytes, bytes/uint64(len(tc.body)), factor)
			}
			if len(problems) > maxProblems+1 {
				t.Errorf("%d problems listed", len(problems))
			}
			for _, m := range problems {
				if path, _, _ := strings.Cut(m, ": "); len(path) > maxPathBytes {
					t.Errorf("a path of %d bytes: %.80q", len(path), m)
					break
				}
			}
		})
	}
}

// The list of problems holds the first maxProblems found, sorted, or when
// there were more, those and how many more; the CheckOOB
// and CheckOOBHeld lists are the same.
func TestProblemListIsCapped(t *testing.T) {
	v := newValidator(t, Options{})
	open := with(t, indyBody)
	open = open[:len(open)-1] // without its closing brace
	unknown := func(n int) string {
		return open + "," + members(n, func(i int) string { return fmt.Sprintf(`"x%05d":0`, i) }) + "}"
	}
	first := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("x%05d: unknown field", i))
		}
		return out
	}
	// Attribute names of 2 000 bytes, each named twice: problems of about
	// 1 KB (the longest a problem is kept), past maxProblemText at 31.
	longNames := func(n int) string {
		names := members(n, func(i int) string { return `"` + strings.Repeat("n", 2000) + strconv.Itoa(i) + `"` })
		return indyWith(`"requested_attributes":{"a":{"names":[` + names + "," + names + `]}}`)
	}
	for _, tc := range []struct {
		name, body string
		want       []string // the list, its last line "… and N more" when problems were dropped
	}{
		{"one", unknown(1), first(1)},
		{"maxProblems-1", unknown(maxProblems - 1), first(maxProblems - 1)},
		{"maxProblems", unknown(maxProblems), first(maxProblems)},
		{"maxProblems+1", unknown(maxProblems + 1), append(first(maxProblems), "… and 1 more")},
		{"5000", unknown(5000), append(first(maxProblems), "… and 4900 more")},
		{"a key repeated 10000 times", open + strings.Repeat(`,"proofFormats":{}`, 10_000) + "}", []string{
			"proofFormats.indy: is required for requestType indy",
			"proofFormats: duplicate key",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, held, h := v.CheckOOBHeld("indy", []byte(tc.body))
			got := append([]string(nil), held...)
			h.Release()
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("problems (%d):\n got  %.300q\n want %.300q", len(got), got, tc.want)
			}
			if _, copied := v.CheckOOB("indy", []byte(tc.body)); strings.Join(copied, "\n") != strings.Join(got, "\n") {
				t.Errorf("CheckOOB %d problems, CheckOOBHeld %d", len(copied), len(got))
			}
		})
	}

	t.Run("text", func(t *testing.T) {
		const n = 60 // problems of about 1 KB
		_, got := v.CheckOOB("indy", []byte(longNames(n)))
		size := 0
		for _, m := range got[:len(got)-1] {
			size += len(m)
			if !strings.Contains(m, "duplicate attribute name") || !strings.HasSuffix(m, ellipsis) || len(m) > maxPathBytes+2+maxProblemBytes {
				t.Errorf("problem %.100q… of %d bytes", m, len(m))
			}
		}
		kept := len(got) - 1
		if size > maxProblemText || kept >= maxProblems || kept < maxProblemText/(maxPathBytes+2+maxProblemBytes) {
			t.Errorf("%d problems of %d bytes kept", kept, size)
		}
		if want := fmt.Sprintf("… and %d more", n-kept); got[len(got)-1] != want {
			t.Errorf("last line %q, want %q", got[len(got)-1], want)
		}
	})
}

// The collector counts every problem it is given, kept, repeated or
// dropped: rules (pe.go) compare counts to see whether a part failed.
func TestCollectorCountsEveryProblem(t *testing.T) {
	for _, tc := range []struct {
		name  string
		add   func(c *collector)
		count int
		list  []string
	}{
		{"repeats in a row", func(c *collector) {
			for range 3 {
				c.add("a", "x")
			}
		}, 3, []string{"a: x"}},
		{"repeats apart", func(c *collector) {
			c.add("a", "x")
			c.add("b", "x")
			c.add("a", "x")
		}, 3, []string{"a: x", "b: x"}},
		{"past the cap", func(c *collector) {
			for i := range maxProblems + 5 {
				p := pathNode{key: "k" + strconv.Itoa(1000+i)}
				c.at(&p, "x")
			}
			c.addf("z", "%d", 1)
			c.atf(nil, "%d", 1)
			c.addMessage("m: x")
		}, maxProblems + 8, nil},
		{"long path and problem", func(c *collector) {
			c.add(strings.Repeat("a", 1000), strings.Repeat("é", 1000))
		}, 1, []string{strings.Repeat("a", pathHead) + ellipsis + strings.Repeat("a", pathTail) + ": " +
			strings.Repeat("é", (maxProblemBytes-len(ellipsis))/2) + ellipsis}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c collector
			tc.add(&c)
			if c.count() != tc.count || c.empty() {
				t.Errorf("count %d, want %d", c.count(), tc.count)
			}
			got := c.errors()
			if tc.list != nil && strings.Join(got, "\n") != strings.Join(tc.list, "\n") {
				t.Errorf("problems %q, want %q", got, tc.list)
			}
			if len(got) > maxProblems+1 {
				t.Errorf("%d problems listed", len(got))
			}
		})
	}
}

// A path is formatted from its chain of nodes exactly as its string would
// be shortened: the first pathHead and last pathTail bytes around an
// ellipsis, cut between characters, when longer than maxPathBytes.
func TestLongPathsAreShortened(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "key", "K.", "é", "😀", "\u2028", "\x00", `"`, " ", "[0]"}
	randomKey := func() string {
		var b strings.Builder
		for n := rng.IntN(4); n >= 0; n-- {
			p := pieces[rng.IntN(len(pieces))]
			b.WriteString(strings.Repeat(p, 1+rng.IntN([]int{3, 40, 300}[rng.IntN(3)])))
		}
		return b.String()
	}
	for i := range 3000 {
		depth := 1 + rng.IntN(8)
		nodes := make([]pathNode, depth)
		var parent *pathNode
		if rng.IntN(4) == 0 {
			root := staticPath(nil, randomKey())
			parent = &root
		}
		for d := range nodes {
			if rng.IntN(3) == 0 {
				nodes[d] = parent.elem(rng.IntN(100000))
			} else {
				nodes[d] = parent.child(randomKey())
			}
			parent = &nodes[d]
		}
		full := string(parent.appendTo(nil, 0))
		got := string(appendPath([]byte("prefix"), parent))[len("prefix"):]
		want := string(appendPathString(nil, full))
		switch {
		case got != want:
			t.Fatalf("path %d:\n chain  %q\n string %q\n full   %q", i, got, want, full)
		case len(full) <= maxPathBytes && got != full:
			t.Fatalf("path %d shortened: %q", i, got)
		case len(got) > maxPathBytes || !utf8.ValidString(got):
			t.Fatalf("path %d of %d bytes: %q", i, len(got), got)
		case len(full) > maxPathBytes && !strings.Contains(got, ellipsis):
			t.Fatalf("path %d without ellipsis: %q", i, got)
		}
	}
	if got := string(appendPath(nil, nil)); got != "body" {
		t.Errorf("no path: %q", got)
	}
}

// probes runs a request and returns the lookups' work meter.
func probes(t *testing.T, v *Validator, requestType, body string) int {
	t.Helper()
	_, problems, held := v.CheckOOBHeld(requestType, []byte(body))
	defer held.Release()
	if len(problems) == 1 && strings.HasPrefix(problems[0], "body") {
		t.Fatal(problems)
	}
	return held.p.doc.probes
}

// No check searches a client's array or object once per element of
// another: the members and elements that lookups compare grow as the body
// does. (Before: names were searched for each name, requested_attributes
// for each predicate; a 1 MiB body took 21.6 s and 3.7 s.)
func TestLookupsAreLinear(t *testing.T) {
	const n = 2000
	names := func(n int) string {
		return indyWith(`"requested_attributes":{"a":{"names":[` + members(n, func(i int) string { return `"n` + strconv.Itoa(i) + `"` }) + `]}}`)
	}
	repeatedNames := func(n int) string {
		return indyWith(`"requested_attributes":{"a":{"names":[` + members(n, func(i int) string { return `"n` + strconv.Itoa(i%(n/2)) + `"` }) + `]}}`)
	}
	referents := func(attrs, preds string) func(n int) string {
		return func(n int) string {
			return indyWith(`"requested_attributes":{` + members(n, func(i int) string { return `"` + attrs + strconv.Itoa(i) + `":{"name":"x"}` }) +
				`},"requested_predicates":{` + members(n, func(i int) string { return `"` + preds + strconv.Itoa(i) + `":{"name":"y","p_type":">=","p_value":1}` }) + `}`)
		}
	}
	fewAttributes := func(n int) string {
		return indyWith(`"requested_attributes":{` + members(smallObject, func(i int) string { return `"a` + strconv.Itoa(i) + `":{"name":"x"}` }) +
			`},"requested_predicates":{` + members(n, func(i int) string { return `"p` + strconv.Itoa(i) + `":{"name":"y","p_type":">=","p_value":1}` }) + `}`)
	}
	recipients := func(n int) string {
		return with(t, indyBody, set("emailId", raw("["+members(n, func(i int) string { return `"u` + strconv.Itoa(i%(n/2)) + `@example.com"` })+"]")))
	}
	unknownMembers := func(n int) string {
		return indyWith(`"requested_attributes":{"a":{"name":"x",` + members(n, func(i int) string { return `"k` + strconv.Itoa(i) + `":0` }) + `}}`)
	}
	for _, tc := range []struct {
		name        string
		requestType string
		body        func(n int) string
		opts        Options
	}{
		{"distinct attribute names", "indy", names, Options{}},
		{"repeated attribute names", "indy", repeatedNames, Options{}},
		{"distinct referents", "indy", referents("a", "p"), Options{}},
		{"referents in both", "indy", referents("r", "r"), Options{}},
		{"few attributes, many predicates", "indy", fewAttributes, Options{}},
		{"recipients", "indy", recipients, Options{MaxRecipients: 2 * n}},
		{"unknown members", "indy", unknownMembers, Options{UnknownFields: UnknownFieldsIgnore}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := newValidator(t, tc.opts)
			once, twice := probes(t, v, tc.requestType, tc.body(n)), probes(t, v, tc.requestType, tc.body(2*n))
			t.Logf("%d elements: %d probes; %d elements: %d", n, once, 2*n, twice)
			// Linear: twice the elements, about twice the work, and a
			// bounded amount of it per element.
			if twice > 2*once+4*smallObject || once > 4*smallObject*n {
				t.Errorf("%d elements: %d probes; %d elements: %d", n, once, 2*n, twice)
			}
		})
	}
}

// parentThreadId is 1 to 128 printable ASCII characters without spaces,
// or absent (null alike).
func TestParentThreadID(t *testing.T) {
	v := newValidator(t, Options{})
	for _, tc := range []struct {
		name string
		edit edit
		want []string
	}{
		{"empty", set("parentThreadId", ""), []string{"parentThreadId: must not be empty (omit the field when there is no parent thread)"}},
		{"absent", del("parentThreadId"), nil},
		{"null", set("parentThreadId", nil), nil},
		{"one character", set("parentThreadId", "p"), nil},
		{"a uuid", set("parentThreadId", "0b9e6c1e-3f0e-4c1e-9d44-4b3c8f2a7e11"), nil},
		{"a space", set("parentThreadId", " "), []string{"parentThreadId: must be a UUID or other printable ASCII without spaces"}},
		{"too long", set("parentThreadId", strings.Repeat("p", 129)), []string{"parentThreadId: must be at most 128 characters"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.OOB("indy", []byte(with(t, indyBody, tc.edit)))
			sameProblems(t, problems(t, err), tc.want)
		})
	}
}
