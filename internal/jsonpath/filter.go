package jsonpath

import (
	"encoding/json"
	"strconv"
	"strings"
)

// exprKind is a filter expression node.
type exprKind uint8

const (
	exprOr exprKind = iota
	exprAnd
	exprNot
	exprExists
	exprCompare
)

type expr struct {
	kind exprKind
	l, r *expr
	op   string
	a, b operand
}

// operand is a relative plain path (@.a[0]) or a literal.
type operand struct {
	isPath bool
	steps  []selector // selName and selIndex only
	lit    any        // string, float64, bool or nil
}

func (p *parser) node() error {
	p.nodes++
	if p.nodes > maxFilterNodes {
		return p.errf("a filter has more than %d operators and operands", maxFilterNodes)
	}
	return nil
}

func (p *parser) orExpr(depth int) (*expr, error) {
	if depth > maxFilterNesting {
		return nil, p.errf("a filter nests more than %d parentheses", maxFilterNesting)
	}
	l, err := p.andExpr(depth)
	if err != nil {
		return nil, err
	}
	for p.space(); strings.HasPrefix(p.s[p.i:], "||"); p.space() {
		p.i += 2
		if err := p.node(); err != nil {
			return nil, err
		}
		r, err := p.andExpr(depth)
		if err != nil {
			return nil, err
		}
		l = &expr{kind: exprOr, l: l, r: r}
	}
	return l, nil
}

func (p *parser) andExpr(depth int) (*expr, error) {
	l, err := p.unary(depth)
	if err != nil {
		return nil, err
	}
	for p.space(); strings.HasPrefix(p.s[p.i:], "&&"); p.space() {
		p.i += 2
		if err := p.node(); err != nil {
			return nil, err
		}
		r, err := p.unary(depth)
		if err != nil {
			return nil, err
		}
		l = &expr{kind: exprAnd, l: l, r: r}
	}
	return l, nil
}

func (p *parser) unary(depth int) (*expr, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, p.errf("unfinished filter")
	}
	if err := p.node(); err != nil {
		return nil, err
	}
	switch {
	case p.s[p.i] == '!' && !strings.HasPrefix(p.s[p.i:], "!="):
		p.i++
		if depth+1 > maxFilterNesting {
			return nil, p.errf("a filter nests more than %d negations and parentheses", maxFilterNesting)
		}
		e, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return &expr{kind: exprNot, l: e}, nil
	case p.s[p.i] == '(':
		p.i++
		e, err := p.orExpr(depth + 1)
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return nil, p.errf("unclosed ( in a filter")
		}
		p.i++
		return e, nil
	}
	a, err := p.operand()
	if err != nil {
		return nil, err
	}
	p.space()
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if strings.HasPrefix(p.s[p.i:], op) {
			p.i += len(op)
			if err := p.node(); err != nil {
				return nil, err
			}
			p.space()
			b, err := p.operand()
			if err != nil {
				return nil, err
			}
			return &expr{kind: exprCompare, op: op, a: a, b: b}, nil
		}
	}
	if strings.HasPrefix(p.s[p.i:], "=~") {
		return nil, p.errf("regular expressions (=~) are not supported in filters; use the field's filter (JSON Schema pattern) instead")
	}
	if !a.isPath {
		return nil, p.errf("a literal alone is not a filter")
	}
	return &expr{kind: exprExists, a: a}, nil
}

func (p *parser) operand() (operand, error) {
	if p.i >= len(p.s) {
		return operand{}, p.errf("unfinished filter")
	}
	switch c := p.s[p.i]; {
	case c == '@':
		p.i++
		return p.relative()
	case c == '$':
		return operand{}, p.errf("filters may refer to the current node (@) only")
	case c == '\'' || c == '"':
		s, err := p.quoted()
		return operand{lit: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		for p.i < len(p.s) && strings.IndexByte("+-.eE0123456789", p.s[p.i]) >= 0 {
			p.i++
		}
		f, err := strconv.ParseFloat(p.s[start:p.i], 64)
		if err != nil {
			return operand{}, p.errf("bad number in a filter")
		}
		return operand{lit: f}, nil
	}
	for word, v := range map[string]any{"true": true, "false": false, "null": nil} {
		if strings.HasPrefix(p.s[p.i:], word) {
			p.i += len(word)
			return operand{lit: v}, nil
		}
	}
	return operand{}, p.errf("unexpected %q in a filter: expected @, a string, a number, true, false or null", p.s[p.i])
}

// relative reads the plain steps after @.
func (p *parser) relative() (operand, error) {
	op := operand{isPath: true}
	for p.i < len(p.s) {
		switch {
		case strings.HasPrefix(p.s[p.i:], ".."):
			return op, p.errf("recursive descent (..) is not allowed inside a filter")
		case p.s[p.i] == '.':
			p.i++
			name := p.name()
			if name == "" {
				return op, p.errf("filters take member names and indices only after @")
			}
			op.steps = append(op.steps, selector{kind: selName, name: name})
		case p.s[p.i] == '[':
			p.i++
			p.space()
			if p.i < len(p.s) && (p.s[p.i] == '\'' || p.s[p.i] == '"') {
				name, err := p.quoted()
				if err != nil {
					return op, err
				}
				op.steps = append(op.steps, selector{kind: selName, name: name})
			} else {
				n, ok, err := p.integer()
				if err != nil {
					return op, err
				}
				if !ok {
					return op, p.errf("filters take member names and indices only after @")
				}
				op.steps = append(op.steps, selector{kind: selIndex, index: n})
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ']' {
				return op, p.errf("unclosed [ in a filter")
			}
			p.i++
		default:
			return op, nil
		}
		if err := p.node(); err != nil {
			return op, err
		}
	}
	return op, nil
}

// eval evaluates a filter on one node.
func (e *expr) eval(node any, b *Budget) (bool, error) {
	switch e.kind {
	case exprOr, exprAnd:
		l, err := e.l.eval(node, b)
		if err != nil {
			return false, err
		}
		if (e.kind == exprOr) == l {
			return l, nil
		}
		return e.r.eval(node, b)
	case exprNot:
		v, err := e.l.eval(node, b)
		return !v, err
	case exprExists:
		_, found, err := e.a.resolve(node, b)
		return found, err
	}
	av, aok, err := e.a.resolve(node, b)
	if err != nil {
		return false, err
	}
	bv, bok, err := e.b.resolve(node, b)
	if err != nil {
		return false, err
	}
	switch e.op {
	case "==":
		return equal(av, aok, bv, bok), nil
	case "!=":
		return !equal(av, aok, bv, bok), nil
	}
	if !aok || !bok {
		return false, nil
	}
	c, ok := compare(av, bv)
	if !ok {
		return false, nil
	}
	switch e.op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	default: // >=
		return c >= 0, nil
	}
}

func (o operand) resolve(node any, b *Budget) (any, bool, error) {
	if !o.isPath {
		return o.lit, true, nil
	}
	cur := node
	for _, s := range o.steps {
		if err := b.visit(); err != nil {
			return nil, false, err
		}
		v, ok := child(cur, s)
		if !ok {
			return nil, false, nil
		}
		cur = v
	}
	return cur, true, nil
}

// number reads the numbers decoding may produce.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// equal compares scalars (numbers by value); objects and arrays are never
// equal to anything, which keeps a comparison O(1). Two absent operands
// are equal (RFC 9535).
func equal(a any, aok bool, b any, bok bool) bool {
	if !aok || !bok {
		return aok == bok
	}
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

// compare orders two numbers or two strings.
func compare(a, b any) (int, bool) {
	if x, ok := number(a); ok {
		y, ok := number(b)
		switch {
		case !ok:
			return 0, false
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	}
	x, ok1 := a.(string)
	y, ok2 := b.(string)
	if !ok1 || !ok2 {
		return 0, false
	}
	return strings.Compare(x, y), true
}
