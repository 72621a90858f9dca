package recordlog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/diskfile"
)

// leftOnDisk appends the line a failed write would have left behind had
// its bytes reached the disk and the truncate not held.
func leftOnDisk(t *testing.T, name string, id uuid.UUID, ver int, state string) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "{\"id\":%q,\"v\":%d,\"doc\":%s}\n", id, ver, doc(id, state)); err != nil {
		t.Fatal(err)
	}
}

func waitRepaired(t *testing.T, l *Log) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		l.mu.RLock()
		n := len(l.repairs)
		l.mu.RUnlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d records still await repair", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A failed transition and a failed create whose lines reached the disk
// anyway: the repair restates the first record and deletes the second, so
// after a restart neither failed write is what the journal holds.
func TestFailedWritesDoNotComeBack(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir)
	held, created := uuid.New(), uuid.New()
	if err := l.Put(held, doc(held, "request-sent")); err != nil {
		t.Fatal(err)
	}
	name := failNextWrite(t, l)
	// One batch, as concurrent writes are.
	if err := l.commit.SubmitAll([]op{{id: held, doc: doc(held, "done")}, {id: created, doc: doc(created, "request-sent")}}); err == nil {
		t.Fatal("a write that failed must fail")
	}
	leftOnDisk(t, name, held, 2, "done")
	leftOnDisk(t, name, created, 1, "request-sent")
	waitRepaired(t, l)
	l.Close()

	l2 := open(t, dir)
	if got := mustGet(t, l2, held); !bytes.Equal(got, doc(held, "request-sent")) {
		t.Fatalf("the failed transition came back: %s", got)
	}
	if l2.Has(created) {
		t.Fatal("the failed create came back")
	}
}

// A write of the id after a failed one goes above the failed version, and
// is what a restart reads back.
func TestWriteAfterAFailedWriteGoesAboveIt(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir)
	id := uuid.New()
	if err := l.Put(id, doc(id, "request-sent")); err != nil {
		t.Fatal(err)
	}
	name := failNextWrite(t, l)
	if err := l.Put(id, doc(id, "abandoned")); err == nil {
		t.Fatal("a write that failed must fail")
	}
	leftOnDisk(t, name, id, 2, "abandoned")
	if err := l.Put(id, doc(id, "done")); err != nil {
		t.Fatal(err)
	}
	waitRepaired(t, l)
	l.mu.RLock()
	at, _ := l.index.get(id)
	l.mu.RUnlock()
	if at.ver < 3 {
		t.Fatalf("version %d, not above the failed write's 2", at.ver)
	}
	if got := mustGet(t, l, id); !bytes.Equal(got, doc(id, "done")) {
		t.Fatalf("held: %s", got)
	}
	l.Close()
	l2 := open(t, dir)
	if got := mustGet(t, l2, id); !bytes.Equal(got, doc(id, "done")) {
		t.Fatalf("read back: %s", got)
	}
}

// While the disk keeps failing, the repair is tried again until it is
// written.
func TestRepairRetriedWhileTheDiskFails(t *testing.T) {
	defer func(d time.Duration, w func(*diskfile.Prefilled, []byte) error) { repairRetry, appendBatch = d, w }(repairRetry, appendBatch)
	repairRetry = 10 * time.Millisecond
	var calls, failures atomic.Int32
	failures.Store(3) // the write, then two repairs
	appendBatch = func(w *diskfile.Prefilled, b []byte) error {
		calls.Add(1)
		if failures.Add(-1) >= 0 {
			return errors.New("disk failing")
		}
		return w.Write(b)
	}
	dir := t.TempDir()
	l := open(t, dir)
	id := uuid.New()
	if err := l.Put(id, doc(id, "request-sent")); err == nil {
		t.Fatal("a write that failed must fail")
	}
	waitRepaired(t, l)
	if n := calls.Load(); n < 4 {
		t.Fatalf("%d writes: the repair was not retried", n)
	}
	l.Close()
	if l2 := open(t, dir); l2.Has(id) {
		t.Fatal("the failed create is held")
	}
}

// TestCloseWaitsForBatchInFlight: a batch being written when the journal
// is closed (here a repair, which no caller waits for: retried every
// second while the disk fails) finishes before Close closes its file.
// Close used to close it under the batch, which then called Discard on a
// nil file: a panic on the committer's goroutine, the process gone.
func TestCloseWaitsForBatchInFlight(t *testing.T) {
	defer func(d time.Duration, w func(*diskfile.Prefilled, []byte) error) { repairRetry, appendBatch = d, w }(repairRetry, appendBatch)
	repairRetry = time.Hour
	var n atomic.Int32
	entered, release := make(chan struct{}), make(chan struct{})
	appendBatch = func(w *diskfile.Prefilled, b []byte) error {
		switch n.Add(1) {
		case 1:
			return errors.New("EIO") // the caller's write fails: a repair is asked for
		case 2: // the repair's batch, held until released
			close(entered)
			<-release
			return errors.New("EIO")
		}
		return w.Write(b)
	}
	l, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.New()
	if err := l.Put(id, doc(id, "request-sent")); err == nil {
		t.Fatal("the first write succeeded; want it failed")
	}
	<-entered
	closed := make(chan struct{})
	go func() {
		_ = l.Close()
		close(closed)
	}()
	// Let Close run as far as it goes (the old code returned at once and
	// had closed the file) before the batch goes on; no time is asserted.
	select {
	case <-closed:
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	<-closed
}

// TestFailingDiskKeepsOneFile: while every write fails, the failed
// batches, the callers' and the repairs retried meanwhile, take their
// lines back and go on in the same file. Each used to start a file of its
// own, left open: one more file and descriptor for every failed request
// and every repair retry, for as long as the disk failed.
func TestFailingDiskKeepsOneFile(t *testing.T) {
	defer func(w func(*diskfile.Prefilled, []byte) error) { appendBatch = w }(appendBatch)
	var failing atomic.Bool
	failing.Store(true)
	appendBatch = func(w *diskfile.Prefilled, b []byte) error {
		if failing.Load() {
			// Half the batch reaches the file before the error.
			return errors.Join(w.Write(b[:len(b)/2]), errors.New("no space left on device"))
		}
		return w.Write(b)
	}
	dir := t.TempDir()
	l := open(t, dir)
	failing.Store(false)
	before := uuid.New()
	if err := l.Put(before, doc(before, "request-sent")); err != nil {
		t.Fatal(err)
	}
	failing.Store(true)
	for range 50 {
		id := uuid.New()
		if err := l.Put(id, doc(id, "request-sent")); err == nil {
			t.Fatal("a write succeeded on the failing disk")
		}
	}
	l.mu.RLock()
	segs := len(l.segs)
	l.mu.RUnlock()
	if segs > 1 {
		t.Fatalf("%d files open after 50 failed writes, want one", segs)
	}
	// The disk recovers: the next write, and the records it restates,
	// are in that file and read back.
	failing.Store(false)
	id := uuid.New()
	if err := l.Put(id, doc(id, "done")); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := l.Get(id); err != nil || !ok || string(got) != string(doc(id, "done")) {
		t.Fatalf("after recovery: %s %v %v", got, ok, err)
	}
	l.mu.RLock()
	segs = len(l.segs)
	l.mu.RUnlock()
	if segs > 1 {
		t.Fatalf("%d files after recovery, want one", segs)
	}
	// Read from disk again: the torn halves left no line between the
	// good ones.
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	again := open(t, dir)
	for _, w := range []struct {
		id    uuid.UUID
		state string
	}{{before, "request-sent"}, {id, "done"}} {
		if got, ok, err := again.Get(w.id); err != nil || !ok || string(got) != string(doc(w.id, w.state)) {
			t.Fatalf("reopened, %s: %s %v %v", w.id, got, ok, err)
		}
	}
}
