package recordlog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestDrain(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := uuid.New(), uuid.New()
	for _, id := range []uuid.UUID{a, b} {
		if err := l.Put(id, doc(id, "request-sent")); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	got := map[uuid.UUID][]byte{}
	settled := 0
	n, err := Drain(dir, nil, func(id uuid.UUID, d []byte) error { got[id] = d; return nil }, func() error {
		// After every put, before anything is removed.
		if settled++; len(got) != 2 || len(files(t, dir)) == 0 {
			t.Errorf("settled with %d records moved and %d journal files left", len(got), len(files(t, dir)))
		}
		return nil
	})
	if err != nil || n != 2 || settled != 1 || !bytes.Equal(got[a], doc(a, "request-sent")) || !bytes.Equal(got[b], doc(b, "request-sent")) {
		t.Fatalf("drain: %d %v %v, settled %d times", n, err, got, settled)
	}
	if n := len(files(t, dir)); n != 0 {
		t.Fatalf("%d files left", n)
	}
	if n, err := Drain(filepath.Join(dir, "missing"), nil, nil, nil); n != 0 || err != nil {
		t.Fatalf("a missing journal: %d %v", n, err)
	}
	// An empty journal is not locked: another process may hold it.
	holder := open(t, dir)
	if n, err := Drain(dir, nil, nil, nil); n != 0 || err != nil {
		t.Fatalf("an empty journal: %d %v", n, err)
	}
	holder.Close()
}

func TestDrainFailureKeepsTheJournal(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.New()
	if err := l.Put(id, doc(id, "request-sent")); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := Drain(dir, nil, func(uuid.UUID, []byte) error { return errors.New("storage down") }, nil); err == nil {
		t.Fatal("want the put's error")
	}
	if _, err := Drain(dir, nil, func(uuid.UUID, []byte) error { return nil }, func() error { return errors.New("fsync failed") }); err == nil {
		t.Fatal("want the settle's error")
	}
	mustGet(t, open(t, dir), id)
}

func TestDrainWaitsForAJournalHeldElsewhere(t *testing.T) {
	defer func(d time.Duration) { drainWait = d }(drainWait)
	drainWait = 300 * time.Millisecond
	dir := t.TempDir()
	holder := open(t, dir)
	id := uuid.New()
	if err := holder.Put(id, doc(id, "request-sent")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := Drain(dir, nil, func(uuid.UUID, []byte) error { return nil }, nil); !errors.Is(err, ErrInUse) || time.Since(start) < drainWait {
		t.Fatalf("drain: %v after %v, want ErrInUse after waiting", err, time.Since(start))
	}
	// Released while Drain waits: it goes ahead.
	go func() { time.Sleep(100 * time.Millisecond); holder.Close() }()
	if n, err := Drain(dir, nil, func(uuid.UUID, []byte) error { return nil }, nil); n != 1 || err != nil {
		t.Fatalf("drain after release: %d %v", n, err)
	}
}

func TestDrainRefusesAJournalThisProcessHolds(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer Release(l)
	if err := l.Put(uuid.New(), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := Drain(dir, nil, func(uuid.UUID, []byte) error { return nil }, nil); !errors.Is(err, ErrInUse) {
		t.Fatalf("drain: %v, want ErrInUse", err)
	}
	again, err := Acquire(dir, nil)
	if err != nil || again != l {
		t.Fatalf("a second Acquire must share the Log: %v", err)
	}
	Release(again)
}

func TestSnapshotBesideTheWriter(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir)
	a, b := uuid.New(), uuid.New()
	for _, id := range []uuid.UUID{a, b} {
		if err := l.Put(id, doc(id, "request-sent")); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Delete(b); err != nil {
		t.Fatal(err)
	}
	got, err := Snapshot(dir)
	if err != nil || len(got) != 1 || !bytes.Equal(got[a], doc(a, "request-sent")) {
		t.Fatalf("snapshot %v %v", got, err)
	}
	// The writer keeps its journal.
	if err := l.Put(b, doc(b, "again")); err != nil {
		t.Fatal(err)
	}
	if got, err := Snapshot(filepath.Join(dir, "missing")); err != nil || len(got) != 0 {
		t.Fatalf("missing: %v %v", got, err)
	}
}

// TestDrainInterruptedBringsNothingBack: a drain whose removals stop half
// way (a failed removal; a crash is the same) leaves only the newer files,
// so that a second drain does not put back a record a removed file had
// deleted. The files used to go in map order: an older file holding a
// record could outlive the newer one holding its deletion.
func TestDrainInterruptedBringsNothingBack(t *testing.T) {
	defer func(rm func(string) error) { removeFile = rm }(removeFile)
	// A journal of three files, as writes and compaction leave one: x and
	// z (z keeps the file from being compacted away), then x's deletion,
	// then y.
	dir := t.TempDir()
	x, y, z := uuid.New(), uuid.New(), uuid.New()
	line := func(id uuid.UUID, v int, d []byte) string {
		if d == nil {
			return fmt.Sprintf(`{"id":"%s","v":%d,"deleted":true}`+"\n", id, v)
		}
		return fmt.Sprintf(`{"id":"%s","v":%d,"doc":%s}`+"\n", id, v, d)
	}
	for seq, content := range map[int]string{
		1: line(x, 1, doc(x, "request-sent")) + line(z, 1, doc(z, "request-sent")),
		2: line(x, 2, nil),
		3: line(y, 1, doc(y, "done")),
	} {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%010d.jsonl", seq)), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := Snapshot(dir); err != nil || len(got) != 2 || got[x] != nil {
		t.Fatalf("the journal as written holds %d records (%v), want y and z", len(got), err)
	}
	for fail := 1; fail <= 3; fail++ {
		t.Run(fmt.Sprintf("removal %d fails", fail), func(t *testing.T) {
			d := t.TempDir()
			copyDir(t, dir, d)
			calls := 0
			removeFile = func(name string) error {
				if calls++; calls == fail {
					return errors.New("EIO")
				}
				return os.Remove(name)
			}
			if _, err := Drain(d, nil, func(uuid.UUID, []byte) error { return nil }, nil); err == nil {
				t.Fatal("want the removal's error")
			}
			removeFile = os.Remove
			got := map[uuid.UUID][]byte{}
			if _, err := Drain(d, nil, func(id uuid.UUID, b []byte) error { got[id] = b; return nil }, nil); err != nil {
				t.Fatal(err)
			}
			if _, back := got[x]; back {
				t.Fatalf("the deleted record came back: %s", got[x])
			}
			if b, ok := got[y]; ok && !bytes.Equal(b, doc(y, "done")) {
				t.Fatalf("y drained as %s", b)
			}
		})
	}
}

// copyDir copies the files of src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
