// Package liveset keeps what is running in the process, grouped by a key
// (a storage and namespace): several configurations sharing one storage
// (two sites, or a config and the one a reload replaces) each need to know
// which of the others run, to leave them what is theirs.
package liveset

import "sync"

// Set holds members of type T by key. The zero value is not usable: use
// New. It is safe for concurrent use.
type Set[T comparable] struct {
	mu    sync.Mutex
	byKey map[string]map[T]struct{}
}

// New returns an empty Set.
func New[T comparable]() *Set[T] { return &Set[T]{byKey: map[string]map[T]struct{}{}} }

// Add puts v under key.
func (s *Set[T]) Add(key string, v T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.byKey[key]
	if m == nil {
		m = map[T]struct{}{}
		s.byKey[key] = m
	}
	m[v] = struct{}{}
}

// Remove takes v from key (nothing if it is not there) and returns the
// members left under key.
func (s *Set[T]) Remove(key string, v T) []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.byKey[key]
	delete(m, v)
	if len(m) == 0 {
		delete(s.byKey, key)
	}
	return members(m)
}

// Members returns the members under key, in no order.
func (s *Set[T]) Members(key string) []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return members(s.byKey[key])
}

func members[T comparable](m map[T]struct{}) []T {
	out := make([]T, 0, len(m))
	for v := range m {
		out = append(out, v)
	}
	return out
}
