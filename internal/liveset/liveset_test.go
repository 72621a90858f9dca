package liveset

import (
	"slices"
	"testing"
)

func TestSet(t *testing.T) {
	s := New[int]()
	s.Add("a", 1)
	s.Add("a", 2)
	s.Add("a", 2) // once
	s.Add("b", 3)
	if got := sorted(s.Members("a")); !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("members of a: %v", got)
	}
	if got := sorted(s.Remove("a", 1)); !slices.Equal(got, []int{2}) {
		t.Fatalf("left after removing 1: %v", got)
	}
	if got := s.Remove("a", 9); !slices.Equal(got, []int{2}) {
		t.Fatalf("removing what is not there: %v", got)
	}
	if got := s.Remove("a", 2); len(got) != 0 || len(s.byKey) != 1 {
		t.Fatalf("a emptied: %v, keys %v", got, s.byKey)
	}
	if got := s.Members("b"); !slices.Equal(got, []int{3}) {
		t.Fatalf("members of b: %v", got)
	}
	if got := s.Members("none"); len(got) != 0 {
		t.Fatalf("members of an unknown key: %v", got)
	}
}

func sorted(v []int) []int { slices.Sort(v); return v }
