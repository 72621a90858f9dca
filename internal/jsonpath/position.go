package jsonpath

// ReadsPosition reports whether the path selects by position in an array:
// an index or a slice, also inside a filter's relative path. Such a path
// reads the order a document's arrays were written in, which a proof over
// a JSON-LD document's canonical RDF does not sign (its arrays are sets):
// a holder may reorder them without breaking the proof.
func (p *Path) ReadsPosition() bool {
	for _, seg := range p.segs {
		for _, s := range seg.sels {
			switch s.kind {
			case selIndex, selSlice:
				return true
			case selFilter:
				if s.filter.readsPosition() {
					return true
				}
			}
		}
	}
	return false
}

func (e *expr) readsPosition() bool {
	if e == nil {
		return false
	}
	for _, o := range []operand{e.a, e.b} {
		for _, s := range o.steps {
			if s.kind == selIndex {
				return true
			}
		}
	}
	return e.l.readsPosition() || e.r.readsPosition()
}
