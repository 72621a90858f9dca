package ownerlog

import (
	"encoding/json"
	"errors"
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
// several times less than a new file. A file is started at the first
// commit, after segmentSize entries or rotateAfter, and after any failed
// write (so a torn line can only end a file).
type appender struct {
	log  *Log
	path string // the directory on disk

	mu      sync.Mutex
	f       *os.File
	key     string
	size    int
	entries int
	opened  time.Time
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
	return a.f != nil && a.key == key
}

// forget drops a deleted file from those this process wrote.
func (a *appender) forget(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.mine, key)
}

// write appends doc as one line and makes it durable. Commits are
// serialized by the committer, so writes never interleave.
func (a *appender) write(doc document) error {
	line, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil || a.entries >= segmentSize || time.Since(a.opened) > rotateAfter {
		if err := a.start(); err != nil {
			return err
		}
	}
	if _, err := a.f.Write(line); err != nil {
		a.abandon()
		return err
	}
	if err := diskfile.Fdatasync(a.f); err != nil {
		a.abandon()
		return err
	}
	a.size += len(line)
	a.entries += len(doc.Owners)
	a.log.setDoc(a.key, docState{entries: a.entries, size: a.size})
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
	f, err := os.OpenFile(filepath.Join(a.path, filepath.Base(key)), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if err := diskfile.SyncDir(a.path); err != nil {
		f.Close()
		return errors.Join(err, os.Remove(f.Name()))
	}
	if a.mine == nil {
		a.mine = make(map[string]struct{})
	}
	a.f, a.key, a.size, a.entries, a.opened = f, key, 0, 0, time.Now()
	a.mine[key] = struct{}{}
	return nil
}

// abandon closes the current file; the next commit starts another.
func (a *appender) abandon() {
	if a.f != nil {
		_ = a.f.Close()
	}
	a.f, a.key = nil, ""
}

// close closes the current file (the Log is released).
func (a *appender) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.abandon()
}
