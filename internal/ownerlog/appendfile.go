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
// and after a failed commit (so a torn line can only end a file, and no
// offset ever takes two lines); a file left gives its zeros back.
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
		a.fail(before)
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

// fail leaves the current file after a commit failed in it, at before
// bytes of content. What the commit wrote may have reached the file, and
// another instance may have read it there: a whole line when only the
// sync failed, which that reader holds, its place in the file past it. A
// next line at the same offset would be skipped or misread by it (or
// pieced together with the failed one's bytes by a reader amid both
// writes), so the next commit starts another file and this one stops
// growing. What may have reached it is taken back (a crash before that
// leaves a torn or unacknowledged last line, which readers skip or, like
// any write that failed, read back; see the README). A file left with no
// content is removed, so that a disk failing every write does not leave
// a file behind per failed create.
func (a *appender) fail(before int64) {
	key, name := a.key, filepath.Join(a.path, filepath.Base(a.key))
	_ = a.w.Discard(before)
	a.abandon()
	if before == 0 && os.Remove(name) == nil {
		delete(a.mine, key)
	}
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
