package recordlog

import "time"

// scrubAfter bounds how long a deleted record's bytes stay on disk: the
// file being written is finished once it is this old, and a finished file
// holding a line superseded or deleted this long ago is compacted. Every
// version of a deleted record is so gone within about twice this; each
// file is rewritten at most once in this time (a variable for the tests).
var scrubAfter = 12 * time.Hour

// startScrub looks every few minutes for a file to finish or compact
// (writes look too; this is for a journal nothing writes to), and submits
// the repairs a failed write asks for (repair.go).
func (l *Log) startScrub() {
	t := time.NewTicker(min(scrubAfter/8, 10*time.Minute))
	done, exited := make(chan struct{}), make(chan struct{})
	// Stopping waits for the goroutine: a repair it submitted may still be
	// waiting on its batch, and Close must not release the files first.
	l.stopScrub = func() { t.Stop(); close(done); <-exited }
	go func() {
		defer close(exited)
		for {
			select {
			case <-done:
				return
			case <-l.kick:
				l.repair()
			case <-t.C:
				l.mu.Lock()
				// Finish the current file (the next write starts another),
				// unless a batch is being written to it (the next tick
				// does then).
				if c := l.cur; c != nil && c != l.writing && !c.garbageAt.IsZero() && l.now().Sub(c.opened) >= scrubAfter {
					l.finishCurrent()
					l.cur = nil
				}
				l.maybeCompact()
				l.mu.Unlock()
			}
		}
	}()
}
