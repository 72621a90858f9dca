package ownerlog

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
)

// refresher runs one reading of the directory at a time. A caller waits
// for the next reading, one that starts after the call: callers arriving
// during a reading share the one after it, so a flood of lookups that miss
// costs one reading at a time.
type refresher struct {
	log     *Log
	mu      sync.Mutex
	next    *flight
	running bool
	// seen is the directory's modification time before the last full
	// reading, taken at statAt (run only uses them).
	seen, statAt time.Time
}

// settled is how long a directory must have been unchanged before its
// modification time alone may say nothing was added: file systems keep
// coarse times (a few milliseconds on ext4, seconds on some), so a file
// added in the same tick as the last change would not move it.
const settled = 2 * time.Second

// flight is one reading of the directory.
type flight struct {
	done chan struct{}
	err  error
}

// once reads the documents added since the last reading. A storage that
// tells the directory's modification time (file_system does) costs one
// stat when nothing changed, plus one per append file another process may
// still be writing (appending does not touch the directory); any other
// reads the listing.
func (r *refresher) once(ctx context.Context) error {
	info, statErr := r.log.storage.Stat(ctx, r.log.dir)
	if statErr == nil && !r.seen.IsZero() && info.Modified.Equal(r.seen) && r.statAt.Sub(r.seen) > settled && !r.log.othersAppended(ctx) {
		return nil
	}
	statAt := time.Now()
	if err := r.log.load(ctx); err != nil {
		return err
	}
	r.seen, r.statAt = time.Time{}, time.Time{}
	if statErr == nil {
		r.seen, r.statAt = info.Modified, statAt
	}
	return nil
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

// run performs the requested readings, one after the other.
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
		ctx, cancel := context.WithTimeout(context.Background(), 4*writeTimeout)
		f.err = r.once(ctx)
		cancel()
		if f.err != nil {
			r.log.logger.Warn("reading the record owners failed", zap.String("dir", r.log.dir), zap.Error(f.err))
		}
		close(f.done)
	}
}

// othersAppended reports whether an append file of another process that
// may still be written has been written since it was read (or cannot be
// told). Its size does not tell (it is zero-filled ahead of its lines):
// its modification time does, once that time is settled before the
// reading's stat, since a write in the same tick as the one before does
// not move it.
func (l *Log) othersAppended(ctx context.Context) bool {
	now := time.Now()
	l.docsMu.Lock()
	var live []string
	for key := range l.docs {
		if kindOf(key) == 'a' && !finished(key, now) {
			live = append(live, key)
		}
	}
	l.docsMu.Unlock()
	for _, key := range live {
		if l.appender != nil && l.appender.own(key) {
			continue
		}
		st, _ := l.docState(key)
		if st.unreadable {
			continue // skipped: its lines are not read
		}
		if st.statAt.IsZero() || st.statAt.Sub(st.modified) <= settled {
			return true
		}
		info, err := l.storage.Stat(ctx, key)
		if err != nil || info.Size != st.fileSize || !info.Modified.Equal(st.modified) {
			return true
		}
	}
	return false
}
