package jsonld

import "sort"

// The Hash N-Degree Quads step of RDFC-1.0 is where canonicalization can
// take forever: for each blank node whose first-degree hash is shared, it
// tries every order of every group of related blank nodes that look
// alike, and recurses, through blank nodes no path has named yet, into
// each of them, trying every order again at each step. Bounding the
// blank nodes and the size of each first-degree group is not enough: a
// tree of blank nodes with six look-alike children per node, 259 nodes
// in all, keeps json-gold busy for minutes, and json-gold cannot be
// stopped (a timed-out run keeps its worker slot and a core). So the work
// is counted before json-gold runs, over the same groups and recursion
// the algorithm uses, counting every order it would try and never
// pruning (an upper bound), and a dataset over the budget is refused.
// Real credentials rarely have look-alike blank nodes at all: for them
// the count is zero.

// nDegreeBudget bounds the counted work (the quads each visit reads, and
// the orders tried × the blank nodes and issued identifiers each
// handles). On trees, rings, cliques and named graphs of look-alike blank
// nodes json-gold spent 10–350 ns a counted unit (the count never prunes,
// json-gold does), so the budget keeps this step of an accepted dataset
// under about 0.2 s; the attack tree above counts past it at once.
const nDegreeBudget = 500_000

// blankQuad is a quad's four components as keys (nodeKey, graphKey).
type blankQuad [4]string

// nDegreeWork counts the work of RDFC-1.0's step 6 on the blank nodes
// quadsOf names (the quads each blank node appears in), whose
// first-degree signatures are sig, and reports whether it stays within
// budget.
func nDegreeWork(quadsOf map[string][]blankQuad, sig map[string]string, budget int) bool {
	groups := map[string][]string{}
	for n, s := range sig {
		groups[s] = append(groups[s], n)
	}
	unique := map[string]bool{}
	var shared []string
	for _, g := range groups {
		if len(g) == 1 {
			unique[g[0]] = true // issued a canonical identifier in step 5
		} else {
			shared = append(shared, g...)
		}
	}
	sort.Strings(shared) // map order must not change the verdict
	w := nDegree{quadsOf: quadsOf, sig: sig, canonical: unique, left: budget}
	for _, n := range shared {
		if !w.visit(n, map[string]bool{n: true}) {
			return false
		}
	}
	return true
}

type nDegree struct {
	quadsOf   map[string][]blankQuad
	sig       map[string]string
	canonical map[string]bool
	left      int // budget not yet spent
}

// spend takes units from the budget; false once it is spent.
func (w *nDegree) spend(units int) bool {
	if units < 0 || units > w.left {
		w.left = -1
		return false
	}
	w.left -= units
	return true
}

// visit counts Hash N-Degree Quads of node n with the identifiers issued
// on its path (issued, n among them). The algorithm's path issuer only
// grows, and a blank node it has named is neither permuted with others
// nor recursed into; counting with fewer named (only n's own path and
// the group at hand, not what earlier groups' recursions named) can only
// count more.
func (w *nDegree) visit(n string, issued map[string]bool) bool {
	// Each visit reads every quad of n to find its related blank nodes.
	if !w.spend(len(w.quadsOf[n])) {
		return false
	}
	related := map[string][]string{}
	var keys []string
	for _, q := range w.quadsOf[n] {
		for i, pos := range [3]string{"s", "o", "g"} {
			r := q[[3]int{0, 2, 3}[i]]
			if r == n || len(r) < 2 || r[:2] != "_:" {
				continue
			}
			key := pos
			if pos != "g" {
				key += q[1]
			}
			switch {
			case w.canonical[r], issued[r]:
				key += " " + r // a name of its own: a group of its own
			default:
				key += " #" + w.sig[r]
			}
			if _, ok := related[key]; !ok {
				keys = append(keys, key)
			}
			related[key] = append(related[key], r)
		}
	}
	sort.Strings(keys)
	for _, key := range keys {
		members := related[key]
		orders, ok := distinctOrders(members, w.left)
		if !ok {
			w.left = -1
			return false
		}
		// Each order names its members and copies the path's issuer.
		if !w.spendTimes(orders, len(members)+len(issued)) {
			return false
		}
		next := map[string]bool{}
		for m := range issued {
			next[m] = true
		}
		var recurse []string
		for _, m := range members {
			if !w.canonical[m] && !next[m] {
				recurse = append(recurse, m)
			}
			next[m] = true
		}
		for _, m := range recurse {
			// Every order recurses into m: its work, counted once and
			// spent again for each order.
			before := w.left
			if !w.visit(m, next) {
				return false
			}
			used := before - w.left
			w.left = before
			if !w.spendTimes(orders, used) {
				return false
			}
		}
	}
	return true
}

// spendTimes spends times × units, without overflow.
func (w *nDegree) spendTimes(times, units int) bool {
	if units != 0 && times > w.left/units {
		w.left = -1
		return false
	}
	return w.spend(times * units)
}

// distinctOrders returns how many distinct orders members has (a blank
// node related through several quads is listed once for each: a graph
// name for every quad in its graph), or false once that exceeds limit.
// json-gold's permutator (Steinhaus-Johnson-Trotter over the sorted list)
// yields at most the distinct orders.
func distinctOrders(members []string, limit int) (int, bool) {
	count := map[string]int{}
	for _, m := range members {
		count[m]++
	}
	// The multinomial k!/(m1!·m2!·…), built as a product of binomials so
	// every step is a whole number.
	orders, placed := 1, 0
	for _, m := range count {
		for i := 1; i <= m; i++ {
			placed++
			if orders > limit/placed {
				return 0, false
			}
			orders = orders * placed / i
		}
	}
	return orders, true
}
