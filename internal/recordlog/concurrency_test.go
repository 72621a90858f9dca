package recordlog

import (
	"bytes"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/diskfile"
)

// A write and a compaction's copy ("move") of the same record that the
// committer gathers into one batch: the copy, checked against the index
// as it was before the batch, must not put the old version back after
// the write (a Put would read back as its previous state, a Delete's
// record would still be held).
func TestMoveInTheBatchOfAWrite(t *testing.T) {
	for _, tt := range []struct {
		name  string
		write func(id uuid.UUID) op
	}{
		{"put", func(id uuid.UUID) op { return op{id: id, doc: doc(id, "done")} }},
		{"delete", func(id uuid.UUID) op { return op{id: id} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := open(t, t.TempDir())
			id := uuid.New()
			if err := l.Put(id, doc(id, "request-sent")); err != nil {
				t.Fatal(err)
			}
			l.mu.RLock()
			from, _ := l.index.get(id)
			l.mu.RUnlock()
			w := tt.write(id)
			if err := l.commit.SubmitAll([]op{w, {id: id, doc: doc(id, "request-sent"), move: true, from: from}}); err != nil {
				t.Fatal(err)
			}
			got, held, err := l.Get(id)
			if err != nil || held != (w.doc != nil) || (held && !bytes.Equal(got, w.doc)) {
				t.Fatalf("after the acknowledged %s: held %v, %s, %v", tt.name, held, got, err)
			}
		})
	}
}

// The same through the public calls: a Put queued behind a batch in
// flight meets the move of the real compaction in the next batch.
func TestPutDuringCompaction(t *testing.T) {
	l := open(t, t.TempDir())
	id, other := uuid.New(), uuid.New()
	if err := l.Put(id, doc(id, "request-sent")); err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	l.cur = nil // its file is finished, as the scrub or segmentMax does
	l.mu.Unlock()

	entered, gate := holdFirstAppend(t)
	errs := make(chan error, 2)
	go func() { errs <- l.Put(other, doc(other, "x")) }() // the batch in flight
	<-entered
	go func() { errs <- l.Put(id, doc(id, "done")) }() // waits for the next batch
	for l.commit.Pending() != 1 {
		time.Sleep(time.Millisecond)
	}
	l.mu.Lock()
	l.maybeCompact() // the finished file is small: compacted, its record moved
	l.mu.Unlock()
	for l.commit.Pending() != 2 {
		time.Sleep(time.Millisecond)
	}
	close(gate)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	waitCompacted(t, l)
	if got := mustGet(t, l, id); !bytes.Equal(got, doc(id, "done")) {
		t.Errorf("after an acknowledged Put, Get returns %s", got)
	}
}

// The scrub must not finish, nor compact, the file a batch is being
// written to: a compaction that read the file before the batch's deletion
// was in memory would remove the file with the deletion, and the older
// file's version of the record would come back at the next start.
func TestScrubSparesTheFileBeingWritten(t *testing.T) {
	origScrub, origMax := scrubAfter, segmentMax
	defer func() { scrubAfter, segmentMax = origScrub, origMax }()
	scrubAfter = 40 * time.Millisecond // the scrub ticks every 5 ms
	segmentMax = 16 << 10              // "small" is under 1 KiB

	dir := t.TempDir()
	l := open(t, dir)
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	l.mu.Lock()
	l.now = func() time.Time { return time.Unix(0, clock.Load()) }
	l.mu.Unlock()

	// File 1: x and enough live fillers not to be compacted.
	x := uuid.New()
	ops := []op{{id: x, doc: doc(x, "done")}}
	for range 20 {
		id := uuid.New()
		ops = append(ops, op{id: id, doc: doc(id, "filler")})
	}
	if err := l.commit.SubmitAll(ops); err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	l.cur = nil
	l.mu.Unlock()
	// File 2, the current one: y written twice, so it holds a superseded
	// line and the scrub may finish it.
	y := uuid.New()
	for _, s := range []string{"a", "b"} {
		if err := l.Put(y, doc(y, s)); err != nil {
			t.Fatal(err)
		}
	}

	entered, gate := holdFirstAppend(t)
	errc := make(chan error, 1)
	go func() { errc <- l.Delete(x) }() // its batch goes to file 2
	<-entered
	clock.Add(int64(scrubAfter)) // file 2 is now old enough to be finished
	// Give the scrub ticks to act while the batch is held (the code before
	// this test compacted file 2 then, submitting its copies).
	for deadline := time.Now().Add(100 * time.Millisecond); l.commit.Pending() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	close(gate)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	waitCompacted(t, l)
	if l.Has(x) {
		t.Fatal("x is still held after its Delete")
	}
	l.Close()
	if open(t, dir).Has(x) {
		t.Errorf("a record whose Delete was acknowledged is back after a restart (files %v)", files(t, dir))
	}
}

// A Put of an id after its Delete goes above the deletion's version, so
// that the journal read back holds it.
func TestPutAfterDelete(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir)
	id := uuid.New()
	for _, step := range []func() error{
		func() error { return l.Put(id, doc(id, "one")) },
		func() error { return l.Delete(id) },
		func() error { return l.Put(id, doc(id, "again")) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	mustGet(t, l, id)
	l.Close()
	if got := mustGet(t, open(t, dir), id); !bytes.Equal(got, doc(id, "again")) {
		t.Errorf("read back: %s", got)
	}
}

// holdFirstAppend makes the next batch's write wait, once it has begun
// (entered closed), until gate is closed; the test's end restores the
// writes.
func holdFirstAppend(t *testing.T) (entered, gate chan struct{}) {
	orig := appendBatch
	t.Cleanup(func() { appendBatch = orig })
	entered, gate = make(chan struct{}), make(chan struct{})
	first := true
	appendBatch = func(w *diskfile.Prefilled, b []byte) error {
		if first {
			first = false
			close(entered)
			<-gate
		}
		return orig(w, b)
	}
	return entered, gate
}
