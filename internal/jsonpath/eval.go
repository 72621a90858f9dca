package jsonpath

import "sort"

// Get evaluates the path over doc on budget b and returns the selected
// values in document order (object members by sorted name). It fails
// with ErrBudget, ErrTooMany or ErrDeadline when the work would exceed b.
func (p *Path) Get(doc any, b *Budget) ([]any, error) {
	cur := []any{doc}
	var err error
	for _, seg := range p.segs {
		var next []any
		if seg.descent {
			next, err = descend(cur, seg.sels, b)
		} else {
			for _, n := range cur {
				if next, err = apply(seg.sels, n, next, b); err != nil {
					break
				}
			}
		}
		if err != nil {
			return nil, err
		}
		if len(next) == 0 {
			return nil, nil
		}
		cur = next
	}
	return cur, nil
}

// frame is a container being walked by descend.
type frame struct {
	arr  []any
	obj  map[string]any
	keys []string // obj's names, sorted
	next int
}

// descend applies sels to every node of cur and all their descendants,
// in document order, depth first. It keeps one frame per level (memory
// grows with depth, not with width) and does not recurse.
func descend(cur []any, sels []selector, b *Budget) ([]any, error) {
	var out []any
	var stack []frame
	var err error
	enter := func(x any) error {
		if err := b.visit(); err != nil {
			return err
		}
		if out, err = apply(sels, x, out, b); err != nil {
			return err
		}
		switch t := x.(type) {
		case map[string]any:
			stack = append(stack, frame{obj: t, keys: sortedKeys(t)})
		case []any:
			stack = append(stack, frame{arr: t})
		}
		return nil
	}
	for _, n := range cur {
		if err = enter(n); err != nil {
			return nil, err
		}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			var x any
			switch {
			case f.obj != nil && f.next < len(f.keys):
				x = f.obj[f.keys[f.next]]
			case f.obj == nil && f.next < len(f.arr):
				x = f.arr[f.next]
			default:
				stack = stack[:len(stack)-1]
				continue
			}
			f.next++
			if err = enter(x); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// apply appends to out what sels select among the children of node.
func apply(sels []selector, node any, out []any, b *Budget) ([]any, error) {
	add := func(v any) error {
		if err := b.visit(); err != nil {
			return err
		}
		if len(out) >= b.maxResults {
			return ErrTooMany
		}
		out = append(out, v)
		return nil
	}
	for _, s := range sels {
		switch s.kind {
		case selName, selIndex:
			if v, ok := child(node, s); ok {
				if err := add(v); err != nil {
					return nil, err
				}
			}
		case selWildcard, selFilter:
			for _, v := range children(node) {
				if s.kind == selFilter {
					if err := b.visit(); err != nil {
						return nil, err
					}
					ok, err := s.filter.eval(v, b)
					if err != nil {
						return nil, err
					}
					if !ok {
						continue
					}
				}
				if err := add(v); err != nil {
					return nil, err
				}
			}
		case selSlice:
			arr, ok := node.([]any)
			if !ok {
				continue
			}
			lo, hi := sliceBounds(s, len(arr))
			if s.step > 0 {
				for i := lo; i < hi; i += s.step {
					if err := add(arr[i]); err != nil {
						return nil, err
					}
				}
			} else {
				for i := hi; i > lo; i += s.step {
					if err := add(arr[i]); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return out, nil
}

// sliceBounds normalizes a slice as RFC 9535 does: for a positive step
// the indices lo <= i < hi, for a negative one hi >= i > lo.
func sliceBounds(s selector, n int) (lo, hi int) {
	norm := func(i int) int {
		if i < 0 {
			return i + n
		}
		return i
	}
	clamp := func(i, min, max int) int {
		if i < min {
			return min
		}
		if i > max {
			return max
		}
		return i
	}
	if s.step > 0 {
		start, end := 0, n
		if s.hasStart {
			start = norm(s.start)
		}
		if s.hasEnd {
			end = norm(s.end)
		}
		return clamp(start, 0, n), clamp(end, 0, n)
	}
	start, end := n-1, -n-1
	if s.hasStart {
		start = norm(s.start)
	}
	if s.hasEnd {
		end = norm(s.end)
	}
	return clamp(end, -1, n-1), clamp(start, -1, n-1)
}

// child selects one member or element.
func child(node any, s selector) (any, bool) {
	switch t := node.(type) {
	case map[string]any:
		if s.kind == selName {
			v, ok := t[s.name]
			return v, ok
		}
	case []any:
		if s.kind == selIndex {
			i := s.index
			if i < 0 {
				i += len(t)
			}
			if i >= 0 && i < len(t) {
				return t[i], true
			}
		}
	}
	return nil, false
}

// children lists an object's member values (by sorted name) or an array's
// elements.
func children(node any) []any {
	switch t := node.(type) {
	case map[string]any:
		keys := sortedKeys(t)
		vals := make([]any, len(keys))
		for i, k := range keys {
			vals[i] = t[k]
		}
		return vals
	case []any:
		return t
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
