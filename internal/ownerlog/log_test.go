package ownerlog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"testing"

	"github.com/caddyserver/certmagic"
)

const testDir = "proofgate/upstream-records/log"

func uuidN(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// plainStorage hides certmagic.FileStorage's type: the Log then writes
// batch documents, as on any storage but file_system.
type plainStorage struct{ certmagic.Storage }

// sinks are the two ways commits are written: lines of an append file
// (file_system) and batch documents (any other storage), over root.
func sinks(root string) map[string]certmagic.Storage {
	files := &certmagic.FileStorage{Path: root}
	return map[string]certmagic.Storage{"append file": files, "batch documents": plainStorage{files}}
}

// opened returns a Log over storage whose first reading has finished.
func opened(t *testing.T, storage certmagic.Storage) *Log {
	t.Helper()
	l := open(storage, testDir, nil)
	if err := l.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return l
}

func documents(t *testing.T, storage certmagic.Storage) (batches, segments []string) {
	t.Helper()
	keys, err := storage.List(context.Background(), testDir, false)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch path.Base(k)[0] {
		case 'b':
			batches = append(batches, k)
		case 's':
			segments = append(segments, k)
		}
	}
	return batches, segments
}

// TestForget: a forgotten record is gone from memory and, through its
// tombstone, from every reading of storage, whatever the order.
func TestForget(t *testing.T) {
	for name := range sinks("") {
		t.Run(name, func(t *testing.T) { testForget(t, sinks(t.TempDir())[name]) })
	}
}

func testForget(t *testing.T, storage certmagic.Storage) {
	l := opened(t, storage)
	for i := range 3 {
		if err := l.Append(Entry{ID: uuidN(i), OrgID: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Forget(uuidN(1)); err != nil {
		t.Fatal(err)
	}
	for _, lg := range []*Log{l, opened(t, storage)} {
		if _, ok := lg.Get(uuidN(1)); ok {
			t.Fatal("a forgotten record is found")
		}
		if _, ok := lg.Get(uuidN(2)); !ok {
			t.Fatal("a remembered record is lost")
		}
	}
	// The tombstone read before its entry still wins.
	x := newIndex()
	x.add(nil, []tombstone{{id: uuidN(1), at: 1}})
	x.add([]Entry{{ID: uuidN(1), OrgID: "a"}}, nil)
	if x.adopt(Entry{ID: uuidN(1), OrgID: "a"}) {
		t.Fatal("adopt took a forgotten record")
	}
	if _, ok := x.get(uuidN(1)); ok {
		t.Fatal("an entry read after its tombstone came back")
	}
}

// TestOtherInstance: a record another instance committed to the shared
// storage is found after Refresh, which a lookup miss calls.
func TestOtherInstance(t *testing.T) {
	for name := range sinks("") {
		t.Run(name, func(t *testing.T) {
			storage := sinks(t.TempDir())[name]
			testOtherInstance(t, open(storage, testDir, nil), opened(t, storage))
		})
	}
}

func testOtherInstance(t *testing.T, a, b *Log) {
	if err := a.Append(Entry{ID: "not-a-uuid", OrgID: "org-x"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Get("not-a-uuid"); ok {
		t.Fatal("b knew before reading storage")
	}
	if err := b.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if org, ok := b.Get("not-a-uuid"); !ok || org != "org-x" {
		t.Fatalf("after Refresh: %q, %v", org, ok)
	}
}

// Len is the number of records held in memory.
func (l *Log) Len() int { return l.idx.len() }

// current returns the file being appended to ("" when none).
func (a *appender) current() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.key
}

// len is the number of ids held.

// isBatch reports whether key names a batch document.
func isBatch(key string) bool { return kindOf(key) == 'b' }
