// Package logsample decides which lines of a frequent log to keep, as
// zap's sampler (and so Caddy's log sampling) does: in each interval, the
// first lines and then one in every so many. It decides before a line
// reaches the logger, so a dropped line costs two atomic operations on
// one cache line and nothing of zap's.
package logsample

import (
	"sync/atomic"
	"time"
)

// Sampler keeps, in each interval, the first lines and then every
// thereafter-th (none after the first ones when thereafter is 0). Make
// one with New. It is safe for concurrent use; lines counted at the very
// moment an interval starts may be counted in the one before, as with
// zap's sampler.
type Sampler struct {
	interval   int64 // nanoseconds
	first      uint64
	thereafter uint64

	// tick is the interval being counted (its start, in nanoseconds
	// since the Unix epoch) and count the lines seen in it. They sit side
	// by side: a line touches one cache line.
	tick  atomic.Int64
	count atomic.Uint64
}

// New returns a sampler keeping, in each interval (a second if interval
// is not positive), the first first lines and then every thereafter-th.
func New(interval time.Duration, first, thereafter int) *Sampler {
	if interval <= 0 {
		interval = time.Second
	}
	return &Sampler{interval: int64(interval), first: uint64(max(first, 0)), thereafter: uint64(max(thereafter, 0))}
}

// Keep counts a line at now and reports whether it is kept.
func (s *Sampler) Keep(now time.Time) bool {
	n := s.count.Add(1)
	t := now.UnixNano()
	tick := t - t%s.interval
	if old := s.tick.Load(); tick > old {
		// The first line of a new interval starts its count; of two
		// lines racing to do so, one wins and the other counts on. A
		// line that read the clock before the interval began (its
		// request lost the core to one that read it after) counts in
		// the current one, as zap's does: restarting for it would keep
		// the first lines of the interval again.
		if s.tick.CompareAndSwap(old, tick) {
			s.count.Store(1)
			n = 1
		}
	}
	if n <= s.first {
		return true
	}
	return s.thereafter > 0 && (n-s.first)%s.thereafter == 0
}
