package recordlog

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
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
