package metrics

import "sync"

// sourceSet holds the functions a collector asks at each scrape, each
// until its stop is called: gauges read from the parts that own the
// numbers, so nobody updates them on the hot path and a part that stops
// (a config unloaded) stops being counted.
type sourceSet[T any] struct {
	mu   sync.Mutex
	next int
	m    map[int]T
}

// add makes v a source until the returned function is called (once or
// more).
func (s *sourceSet[T]) add(v T) (stop func()) {
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[int]T)
	}
	id := s.next
	s.next++
	s.m[id] = v
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.m, id)
			s.mu.Unlock()
		})
	}
}

// snapshot returns the sources now, to be asked without the lock held.
func (s *sourceSet[T]) snapshot() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]T, 0, len(s.m))
	for _, v := range s.m {
		out = append(out, v)
	}
	return out
}

// len returns how many sources there are.
func (s *sourceSet[T]) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
