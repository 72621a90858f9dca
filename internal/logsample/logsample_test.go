package logsample

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// TestKeep: the first lines of each interval, then one in thereafter; a
// new interval starts over.
func TestKeep(t *testing.T) {
	start := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name              string
		first, thereafter int
		want              string // per line of one interval: + kept, - dropped
	}{
		{"first then every third", 2, 3, "++--+--+--+"},
		{"first only", 3, 0, "+++--------"},
		{"every line", 1, 1, "+++++++++++"},
		{"every second, no first", 0, 2, "-+-+-+-+-+-"},
		{"nothing", 0, 0, "-----------"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(time.Second, tc.first, tc.thereafter)
			for round := range 2 { // a new interval starts over
				now := start.Add(time.Duration(round) * time.Second)
				got := ""
				for i := range len(tc.want) {
					if s.Keep(now.Add(time.Duration(i) * time.Millisecond)) {
						got += "+"
					} else {
						got += "-"
					}
				}
				if got != tc.want {
					t.Errorf("interval %d: %s, want %s", round, got, tc.want)
				}
			}
		})
	}
}

// TestNewDefaultsInterval: an interval that is not positive is a second.
func TestNewDefaultsInterval(t *testing.T) {
	s := New(0, 1, 0)
	start := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	if !s.Keep(start) || s.Keep(start.Add(999*time.Millisecond)) || !s.Keep(start.Add(time.Second)) {
		t.Error("a zero interval is not counted as a second")
	}
}

// TestKeepConcurrent: lines counted from many goroutines in one interval
// keep exactly first plus one in thereafter of the rest. The interval is
// begun by one line before they race: lines counted at the very moment
// an interval starts may count in the one before (Sampler's doc), which
// the race detector's scheduling showed.
func TestKeepConcurrent(t *testing.T) {
	s := New(time.Hour, 10, 100)
	now := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	if !s.Keep(now) {
		t.Fatal("the interval's first line was dropped")
	}
	var kept sync.Map
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for range 1260 {
				if s.Keep(now) {
					n++
				}
			}
			kept.Store(g, n)
		}()
	}
	wg.Wait()
	total := 1
	kept.Range(func(_, v any) bool { total += v.(int); return true })
	// 1 + 8 × 1260 = 10,081 lines: the first 10, then 1 in 100 of 10,071.
	if want := 10 + 100; total != want {
		t.Errorf("kept %d lines, want %d", total, want)
	}
}

func BenchmarkKeep(b *testing.B) {
	s := New(time.Second, 10, 100)
	now := time.Now()
	for b.Loop() {
		s.Keep(now)
	}
}

// TestLateLineCountsInTheCurrentInterval: a line whose clock reading is
// from just before the interval being counted (its request read the clock,
// then lost the core to one that read it after the boundary and logged
// first) counts in the current interval, as zap's sampler counts it; it
// used to restart the count, keeping the first lines again each time.
func TestLateLineCountsInTheCurrentInterval(t *testing.T) {
	s := New(time.Second, 2, 0)
	t1 := time.Unix(1000, 0)
	late := t1.Add(-time.Nanosecond)
	var kept []int
	for i, at := range []time.Time{t1, t1, late, t1, t1, late, t1} {
		if s.Keep(at) {
			kept = append(kept, i)
		}
	}
	if !slices.Equal(kept, []int{0, 1}) {
		t.Errorf("kept lines %v of 7 around one boundary (first 2, thereafter 0), want [0 1]", kept)
	}
	if !s.Keep(t1.Add(time.Second)) {
		t.Error("the first line of the next interval was dropped")
	}
}
