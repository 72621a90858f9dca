package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds nesting so a hostile body (e.g. 1 MiB of "[") cannot
// drive the recursive walks below into deep stacks. Real requests,
// presentation definitions with JSON Schema filters included, stay far
// below it.
const maxDepth = 64

// errAbort stops decoding after a problem that makes the rest unreadable.
var errAbort = errors.New("abort")

// decodeObject reads body as exactly one JSON object into a generic tree
// (map[string]any, []any, string, json.Number, bool, nil), reporting
// duplicate keys at any depth with their field path. encoding/json keeps
// the last of two duplicates silently, which would let a proxy and an agent
// read different requests from the same bytes, hence this walk.
//
// It returns nil when the body is not readable as one object; duplicate
// keys are reported but decoding goes on, so other problems show too.
func decodeObject(body []byte, c *collector) map[string]any {
	if !utf8.Valid(body) {
		c.add("body", "is not valid UTF-8")
		return nil
	}
	d := treeDecoder{dec: json.NewDecoder(bytes.NewReader(body)), c: c}
	d.dec.UseNumber()

	tok, err := d.dec.Token()
	if err == io.EOF {
		c.add("body", "must be a JSON object, got nothing")
		return nil
	}
	if err != nil {
		d.syntax(err)
		return nil
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		c.add("body", "must be a JSON object")
		return nil
	}
	obj, err := d.object(nil, 1)
	if err != nil {
		return nil
	}
	if _, err := d.dec.Token(); err != io.EOF {
		c.add("body", "unexpected data after the JSON object")
		return nil
	}
	return obj
}

// pathNode is a field path kept as a chain and formatted only when a
// problem is reported, so decoding a valid body builds no path strings.
type pathNode struct {
	parent *pathNode
	key    string
	idx    int
	isIdx  bool
}

func (p *pathNode) String() string {
	if p == nil {
		return ""
	}
	parent := p.parent.String()
	if p.isIdx {
		return index(parent, p.idx)
	}
	return key(parent, p.key)
}

type treeDecoder struct {
	dec *json.Decoder
	c   *collector
}

func (d *treeDecoder) syntax(err error) {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		d.c.add("body", "invalid JSON near byte "+strconv.FormatInt(se.Offset, 10)+": "+se.Error())
	case errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF:
		d.c.add("body", "invalid JSON: unexpected end of input")
	default:
		d.c.add("body", "invalid JSON: "+err.Error())
	}
}

// value decodes the value that starts with tok.
func (d *treeDecoder) value(tok json.Token, at *pathNode, depth int) (any, error) {
	delim, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	if depth >= maxDepth {
		d.c.add("body", "nested deeper than "+strconv.Itoa(maxDepth)+" levels")
		return nil, errAbort
	}
	switch delim {
	case '{':
		return d.object(at, depth+1)
	case '[':
		return d.array(at, depth+1)
	}
	// Token never returns a closing delimiter here: it reports them as
	// syntax errors where they do not belong.
	d.c.add("body", "invalid JSON")
	return nil, errAbort
}

func (d *treeDecoder) object(at *pathNode, depth int) (map[string]any, error) {
	obj := make(map[string]any)
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			d.syntax(err)
			return nil, errAbort
		}
		k, ok := tok.(string)
		if !ok {
			d.c.add("body", "invalid JSON: object key is not a string")
			return nil, errAbort
		}
		here := pathNode{parent: at, key: k}
		if _, dup := obj[k]; dup {
			d.c.add(here.String(), "duplicate key")
		}
		tok, err = d.dec.Token()
		if err != nil {
			d.syntax(err)
			return nil, errAbort
		}
		v, err := d.value(tok, &here, depth)
		if err != nil {
			return nil, err
		}
		obj[k] = v
	}
	if _, err := d.dec.Token(); err != nil { // the closing '}'
		d.syntax(err)
		return nil, errAbort
	}
	return obj, nil
}

func (d *treeDecoder) array(at *pathNode, depth int) ([]any, error) {
	arr := []any{}
	for i := 0; d.dec.More(); i++ {
		tok, err := d.dec.Token()
		if err != nil {
			d.syntax(err)
			return nil, errAbort
		}
		here := pathNode{parent: at, idx: i, isIdx: true}
		v, err := d.value(tok, &here, depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
	}
	if _, err := d.dec.Token(); err != nil { // the closing ']'
		d.syntax(err)
		return nil, errAbort
	}
	return arr, nil
}
