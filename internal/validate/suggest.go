package validate

import "strings"

// unknownField is the problem reported for a key that is not part of the
// request: "unknown field", with the nearest known name when one is close
// enough to be a typo ("isShortUrl" → "did you mean isShortenUrl?").
func unknownField(name string, known []string) string {
	if s := nearest(name, known); s != "" {
		return "unknown field (did you mean " + s + "?)"
	}
	return "unknown field"
}

// nearest returns the known name closest to name, ignoring case, if it is
// within a few edits: one for short names, up to three for long ones. A
// suggestion that is probably wrong is worse than none.
func nearest(name string, known []string) string {
	if len(name) > 64 {
		return "" // bounded work for hostile keys
	}
	lower := strings.ToLower(name)
	best, bestDist := "", -1
	for _, k := range known {
		limit := min(3, max(1, len(k)/4))
		d := editDistance(lower, strings.ToLower(k))
		if d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b
// (insertions, deletions, substitutions and transpositions of neighbours,
// each costing one), on bytes: field names are ASCII.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
