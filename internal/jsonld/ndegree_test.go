package jsonld

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/piprate/json-gold/ld"
)

// blankTree is a tree of blank nodes whose children all carry their
// parent's label: look-alike siblings (twins at first degree), while
// nodes of different parents differ.
func blankTree(label string, depth, fan int) map[string]any {
	n := map[string]any{"https://example.org/l": label}
	if depth == 0 {
		return n
	}
	var kids []any
	for i := range fan {
		k := blankTree(fmt.Sprintf("%s.%d", label, i), depth-1, fan)
		k["https://example.org/l"] = label
		kids = append(kids, k)
	}
	n["https://example.org/c"] = kids
	return n
}

// A dataset within every other limit (259 blank nodes, no more than six
// alike at first degree) whose canonicalization json-gold does not finish
// in minutes is refused before json-gold starts; smaller trees of
// look-alike nodes are canonicalized.
func TestCanonizeRefusesEntangledBlankNodes(t *testing.T) {
	l, _ := NewLoader("")
	c := NewCanonicalizer(l, Limits{})
	for _, tt := range []struct {
		depth, fan int
		refused    bool
	}{
		{3, 6, true},  // the attack: minutes of json-gold
		{3, 5, true},  // about 10 s
		{2, 4, false}, // about 1 ms
		{5, 2, false},
		{1, 6, false},
	} {
		t.Run(fmt.Sprintf("depth %d fan %d", tt.depth, tt.fan), func(t *testing.T) {
			start := time.Now()
			_, err := c.Canonize(context.Background(), blankTree("r", tt.depth, tt.fan), Options{})
			if tt.refused != (err != nil) {
				t.Fatalf("err = %v, want refused %v", err, tt.refused)
			}
			if tt.refused && (!errors.Is(err, ErrLimits) || !strings.Contains(err.Error(), "too alike")) {
				t.Fatalf("err = %v, want ErrLimits naming the blank nodes", err)
			}
			if d := time.Since(start); d > 4*time.Second {
				t.Fatalf("took %v: the refusal came from the timeout, not the count", d)
			}
		})
	}
}

// The count takes each group of related blank nodes in at most as many
// orders as json-gold's permutator yields: its distinct orders.
func TestDistinctOrdersBoundTheReferencePermutator(t *testing.T) {
	for _, list := range [][]string{
		{"a"}, {"a", "b"}, {"a", "a"}, {"a", "b", "c", "d"}, {"a", "a", "b", "b", "c"},
		{"a", "a", "b", "b", "c", "c"}, {"b", "a", "b", "b", "b", "b", "c", "c"},
		{"x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "y"}, {"a", "b", "c", "d", "e", "f", "g"},
	} {
		yielded := 0
		for p := ld.NewPermutator(list); p.HasNext(); p.Next() {
			yielded++
		}
		counted, ok := distinctOrders(list, 1<<30)
		if !ok || counted < yielded {
			t.Errorf("%v: counted %d orders, json-gold yields %d", list, counted, yielded)
		}
	}
	if _, ok := distinctOrders(strings.Split("abcdefghijklmnopqrstuvwxyz", ""), 1<<40); ok {
		t.Error("26! orders within 2^40")
	}
}
