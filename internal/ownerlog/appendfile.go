package ownerlog

import (
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/proofgate/proofgate/internal/diskfile"
)

// rotateAfter is how long a process starts appends to one file at most.
// A file is finished once appendQuiet has passed since the time in its
// name: compaction may merge it, and other instances need not watch it
// grow. The margin covers a last append that began just before
// rotateAfter and stalled on the disk, and clocks of instances that
// disagree by a few minutes.
const (
	rotateAfter = time.Hour
	appendQuiet = rotateAfter + 5*time.Minute
)

// finished reports whether no process appends to the file key any more.
func finished(key string, now time.Time) bool { return now.Sub(stampOf(key)) >= appendQuiet }

// appender writes commits as lines of an append-only file of this
// process's own, in the log's directory on disk (certmagic's file_system
// storage): a commit is one write and one fdatasync, with no file
// created, renamed or directory synced, which on a small VM's disk costs
// several times less than a new file. The file is zero-filled ahead of
// the lines (diskfile.Prefilled), so the fdatasync writes no size: its
// zeros read as the end of the lines, and since appends do not change
// the size, other instances watch the file's modification time. A file is
// started at the first commit, after segmentSize entries or rotateAfter,
// and after any failed write (so a torn line can only end a file); a
// file left gives its zeros back.
type appender struct {
	log  *Log
	path string // the directory on disk

	mu      sync.Mutex
	w       *diskfile.Prefilled
	key     string
	entries int
	// line is the buffer a commit's line is encoded in, reused.
	line   []byte
	opened time.Time
	// mine are the files this process wrote: their lines are in memory.
	mine map[string]struct{}
}

// own reports whether this process wrote the file key.
func (a *appender) own(key string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.mine[key]
	return ok
}

// writing reports whether key is the file commits go to now.
func (a *appender) writing(key string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.w != nil && a.key == key
}

// forget drops a deleted file from those this process wrote.
func (a *appender) forget(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.mine, key)
}

// writeLine writes a commit's line to its file (a variable for the tests,
// which make the disk fail).
var writeLine = (*diskfile.Prefilled).Write

// write appends doc as one line and makes it durable. Commits are
// serialized by the committer, so writes never interleave.
func (a *appender) write(doc document) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.line = append(appendDocument(a.line[:0], doc), '\n')
	if a.w == nil || a.entries >= segmentSize || time.Since(a.opened) > rotateAfter {
		if err := a.start(); err != nil {
			return err
		}
	}
	before := a.w.Size()
	err := writeLine(a.w, a.line)
	if err == nil {
		err = a.w.Sync()
	}
	if err != nil {
		// What may have reached the file is taken back; a crash before
		// that leaves a torn or unacknowledged last line, which readers
		// of a finished file skip. Once taken back, the next commit goes
		// on in this file (its fill zeroes and syncs the space after the
		// content first); only when the cut fails does it start another,
		// so a failing disk does not leave a file behind per failed
		// create.
		if derr := a.w.Discard(before); derr != nil {
			a.abandon()
		}
		return err
	}
	a.entries += len(doc.Owners)
	a.log.setDoc(a.key, docState{entries: a.entries, size: int(a.w.Size())})
	return nil
}

// start closes the current file and creates the next, durably (its
// directory entry synced before any commit relies on it).
func (a *appender) start() error {
	a.abandon()
	if err := os.MkdirAll(a.path, 0o700); err != nil {
		return err
	}
	key := a.log.name('a')
	w, err := diskfile.CreatePrefilled(filepath.Join(a.path, filepath.Base(key)))
	if err != nil {
		return err
	}
	if a.mine == nil {
		a.mine = make(map[string]struct{})
	}
	a.w, a.key, a.entries, a.opened = w, key, 0, time.Now()
	a.mine[key] = struct{}{}
	return nil
}

// abandon gives the current file's zeros back and closes it; the next
// commit starts another.
func (a *appender) abandon() {
	if a.w != nil {
		_ = a.w.Finish()
		_ = a.w.File().Close()
	}
	a.w, a.key = nil, ""
}

// close closes the current file (the Log is released).
func (a *appender) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.abandon()
}
