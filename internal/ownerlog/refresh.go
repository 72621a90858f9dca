package ownerlog

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
)

// refresher runs one reading of the directory at a time, at most one per
// refreshEvery. A caller waits for the next reading, one that starts after
// the call: callers arriving during a reading share the one after it.
type refresher struct {
	log     *Log
	mu      sync.Mutex
	next    *flight
	running bool
	// lastStart is when the last reading began (used by run only).
	lastStart time.Time
}

// flight is one reading of the directory.
type flight struct {
	done chan struct{}
	err  error
}

// request schedules a reading and returns it.
func (r *refresher) request() *flight {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.next == nil {
		r.next = &flight{done: make(chan struct{})}
	}
	if !r.running {
		r.running = true
		go r.run()
	}
	return r.next
}

// wait requests a reading and waits for it.
func (r *refresher) wait(ctx context.Context) error {
	f := r.request()
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run performs the requested readings, spaced by refreshEvery.
func (r *refresher) run() {
	for {
		r.mu.Lock()
		f := r.next
		r.next = nil
		if f == nil {
			r.running = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		if wait := refreshEvery - time.Since(r.lastStart); wait > 0 {
			time.Sleep(wait)
		}
		r.lastStart = time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 4*writeTimeout)
		f.err = r.log.load(ctx)
		cancel()
		if f.err != nil {
			r.log.logger.Warn("reading the record owners failed", zap.String("dir", r.log.dir), zap.Error(f.err))
		}
		close(f.done)
	}
}
