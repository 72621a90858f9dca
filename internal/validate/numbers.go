package validate

import (
	"encoding/json"

	"github.com/proofgate/proofgate/internal/pefilter"
)

// numbersWithinBounds reports every number of v, a part of a presentation
// definition found at p, that has more digits or a larger exponent than
// pefilter's bounds (pefilter.CheckNumbers says whether there is one), and
// whether there was none. The schema library reads
// a definition's numbers as exact fractions (a submission requirement's
// "count": 1e999999 cost 44 ms to read), so they are checked before any
// schema sees them; filters' numbers are held to the same bounds. rename
// maps the spec's member names at this level to the caller's.
func numbersWithinBounds(v any, p *pathNode, rename map[string]string, c *collector) bool {
	switch t := v.(type) {
	case json.Number:
		if !pefilter.NumberWithinBounds(string(t)) {
			c.atf(p, "the number %s has more than %d digits or an exponent past ±%d", pefilter.TruncateNumber(string(t)), pefilter.MaxNumberDigits, pefilter.MaxNumberExponent)
			return false
		}
	case map[string]any:
		ok := true
		for k, e := range t {
			if r, renamed := rename[k]; renamed {
				k = r
			}
			q := p.child(k)
			ok = numbersWithinBounds(e, &q, nil, c) && ok
		}
		return ok
	case []any:
		ok := true
		for i, e := range t {
			q := p.elem(i)
			ok = numbersWithinBounds(e, &q, nil, c) && ok
		}
		return ok
	}
	return true
}
