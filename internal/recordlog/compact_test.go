package recordlog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/diskfile"
)

// TestCompaction: a finished file that is mostly superseded is copied
// forward and removed; what it held stays readable, now and after a
// restart, and its deletions are dropped once no older file remains.
func TestCompaction(t *testing.T) {
	defer func(n int64) { segmentMax = n }(segmentMax)
	segmentMax = 4096
	dir := t.TempDir()
	l := open(t, dir)
	keep, gone := uuid.New(), uuid.New()
	if err := l.Put(keep, doc(keep, "request-sent")); err != nil {
		t.Fatal(err)
	}
	if err := l.Put(gone, doc(gone, "request-sent")); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(gone); err != nil {
		t.Fatal(err)
	}
	churn := uuid.New()
	big := bytes.Repeat([]byte("x"), 300)
	for i := range 40 { // supersede its own lines, file after file
		if err := l.Put(churn, []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, big))); err != nil {
			t.Fatal(err)
		}
	}
	waitCompacted(t, l)
	if n := len(files(t, dir)); n > 3 {
		t.Fatalf("%d files after compaction", n)
	}
	check := func(l *Log) {
		t.Helper()
		if got := mustGet(t, l, keep); !bytes.Equal(got, doc(keep, "request-sent")) {
			t.Fatalf("keep: %s", got)
		}
		if got := mustGet(t, l, churn); !bytes.Contains(got, []byte(`"n":39`)) {
			t.Fatalf("churn: %.20s", got)
		}
		if l.Has(gone) {
			t.Fatal("a deleted record came back")
		}
	}
	check(l)
	l.Close()
	check(open(t, dir))
}

// TestSmallFilesAreFolded: each start leaves a small file; the next
// start's writes fold it into the new file.
func TestSmallFilesAreFolded(t *testing.T) {
	dir := t.TempDir()
	var ids []uuid.UUID
	for range 3 {
		l, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := uuid.New()
		ids = append(ids, id)
		if err := l.Put(id, doc(id, "request-sent")); err != nil {
			t.Fatal(err)
		}
		waitCompacted(t, l)
		l.Close()
	}
	if n := len(files(t, dir)); n != 1 {
		t.Fatalf("%d files, want the last start's only", n)
	}
	l := open(t, dir)
	for _, id := range ids {
		mustGet(t, l, id)
	}
}

// TestMoveOfAChangedRecordIsDropped: a compaction's copy of a record that
// was written again since it read it is not written.
func TestMoveOfAChangedRecordIsDropped(t *testing.T) {
	l := open(t, t.TempDir())
	id := uuid.New()
	if err := l.Put(id, doc(id, "one")); err != nil {
		t.Fatal(err)
	}
	l.mu.RLock()
	from, _ := l.index.get(id)
	l.mu.RUnlock()
	if err := l.Put(id, doc(id, "two")); err != nil {
		t.Fatal(err)
	}
	if err := l.commit.SubmitAll([]op{{id: id, doc: doc(id, "one"), move: true, from: from}}); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, l, id); !bytes.Equal(got, doc(id, "two")) {
		t.Fatalf("a stale copy won: %s", got)
	}
}

// TestFailedRemovalKeepsDeletions: a compacted file whose removal fails
// stays on disk, so it still counts as an older file: the deletions of
// newer files are copied forward, not dropped, and the record it holds
// does not come back at the next start.
func TestFailedRemovalKeepsDeletions(t *testing.T) {
	defer func(n int64) { segmentMax = n }(segmentMax)
	segmentMax = 1 // every batch finishes its file
	dir := t.TempDir()
	gone := uuid.New()

	l1, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l1.Put(gone, doc(gone, "done")); err != nil {
		t.Fatal(err)
	}
	l1.Close()

	l2, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := l2.path(1)
	// Make the removal of file 1 fail (as an EIO/EPERM/EBUSY would): a
	// non-empty directory stands at its name while the Log reads the file
	// through its open descriptor.
	if err := os.Rename(first, first+".aside"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(first, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := l2.Delete(gone); err != nil { // file 2; file 1 is compacted
		t.Fatal(err)
	}
	waitCompacted(t, l2)
	// The file the removal failed on is still there.
	if err := os.RemoveAll(first); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(first+".aside", first); err != nil {
		t.Fatal(err)
	}
	other := uuid.New()
	if err := l2.Put(other, doc(other, "request-sent")); err != nil { // file 3; file 2 is compacted
		t.Fatal(err)
	}
	waitCompacted(t, l2)
	l2.Close()
	t.Logf("files left: %v", files(t, dir))

	l3 := open(t, dir)
	if l3.Has(gone) {
		t.Fatal("a deleted record came back after a restart: the deletion was dropped while the file holding the record stayed")
	}
}

// TestFailedRemovalIsRetried: a compacted file whose removal failed, or
// whose directory sync after it did, stays known and is removed by a later
// compaction; meanwhile the compaction of a newer file copies its
// deletions forward, so that the file, were it back after a crash, would
// not bring back what they deleted.
func TestFailedRemovalIsRetried(t *testing.T) {
	defer func(n int64, sync func(string) error) { segmentMax, syncDir = n, sync }(segmentMax, syncDir)
	segmentMax = 1 // every batch finishes its file
	var syncFails atomic.Bool
	syncDir = func(dir string) error {
		if syncFails.Load() {
			return errors.New("EIO")
		}
		return diskfile.SyncDir(dir)
	}
	for _, how := range []string{"removal", "directory sync"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			gone, a, b := uuid.New(), uuid.New(), uuid.New()
			l1 := open(t, dir)
			if err := l1.Put(gone, doc(gone, "done")); err != nil { // file 1
				t.Fatal(err)
			}
			l1.Close()

			l := open(t, dir)
			var clock atomic.Int64
			clock.Store(time.Now().UnixNano())
			l.mu.Lock()
			l.now = func() time.Time { return time.Unix(0, clock.Load()) }
			l.mu.Unlock()
			later := func() { clock.Add(int64(2 * time.Minute)) } // past retryAt
			first := l.path(1)
			saved, err := os.ReadFile(first)
			if err != nil {
				t.Fatal(err)
			}
			fail := func(on bool) {
				t.Helper()
				if how == "directory sync" {
					syncFails.Store(on)
					return
				}
				// A non-empty directory at the file's name, which the Log
				// reads through its open descriptor.
				if on {
					if err := os.Rename(first, first+".aside"); err != nil {
						t.Fatal(err)
					}
					if err := os.MkdirAll(filepath.Join(first, "x"), 0o700); err != nil {
						t.Fatal(err)
					}
					return
				}
				if err := os.RemoveAll(first); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(first+".aside", first); err != nil {
					t.Fatal(err)
				}
			}
			known := func() bool {
				l.mu.RLock()
				defer l.mu.RUnlock()
				s, ok := l.segs[1]
				return ok && s.removing
			}

			fail(true)
			if err := l.Delete(gone); err != nil { // file 2; file 1 is compacted
				t.Fatal(err)
			}
			waitCompacted(t, l)
			if !known() {
				t.Fatal("file 1 was forgotten though its removal failed")
			}
			// Still failing: file 2 is compacted, its deletion of gone
			// copied forward, as file 1 may still be on disk.
			later()
			if err := l.Put(a, doc(a, "request-sent")); err != nil {
				t.Fatal(err)
			}
			waitCompacted(t, l)
			if !known() {
				t.Fatal("file 1 was forgotten though its removal failed again")
			}
			if _, err := os.Stat(l.path(2)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("file 2 was not compacted away: %v", err)
			}
			// The disk as a crash before file 1's removal was durable
			// would leave it.
			crashed := t.TempDir()
			copyDir(t, dir, crashed)
			if err := os.WriteFile(filepath.Join(crashed, filepath.Base(first)), saved, 0o600); err != nil {
				t.Fatal(err)
			}
			if got, err := Snapshot(crashed); err != nil {
				t.Fatal(err)
			} else if _, back := got[gone]; back {
				t.Fatal("a deleted record comes back with file 1: its deletion was dropped")
			}

			// The disk recovers: the next compaction removes file 1.
			fail(false)
			later()
			if err := l.Put(b, doc(b, "request-sent")); err != nil {
				t.Fatal(err)
			}
			waitCompacted(t, l)
			if known() {
				t.Fatal("file 1 is still kept after its removal succeeded")
			}
			if _, err := os.Stat(first); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("file 1 is still on disk: %v", err)
			}
			l.Close()
			again := open(t, dir)
			mustGet(t, again, a)
			mustGet(t, again, b)
			if again.Has(gone) {
				t.Fatal("a deleted record came back")
			}
		})
	}
}

func waitCompacted(t *testing.T, l *Log) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l.mu.RLock()
		busy := l.busy
		l.mu.RUnlock()
		if !busy {
			l.compacting.Wait()
			l.mu.RLock()
			busy = l.busy
			l.mu.RUnlock()
			if !busy {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("compaction did not finish")
		}
		time.Sleep(time.Millisecond)
	}
}
