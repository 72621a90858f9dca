package ownerlog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
)

// TestCompact: compaction merges the batches into one segment, drops the
// forgotten entry, keeps its tombstone, and a fresh reading finds the
// same owners; what it cannot merge (a full segment) stays.
func TestCompact(t *testing.T) {
	storage := plainStorage{&certmagic.FileStorage{Path: t.TempDir()}}
	l := opened(t, storage)
	for i := range 10 {
		if err := l.Append(Entry{ID: uuidN(i), OrgID: fmt.Sprint("org-", i%2)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Forget(uuidN(4)); err != nil {
		t.Fatal(err)
	}
	if err := l.compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	batches, segments := documents(t, storage)
	if len(batches) != 0 || len(segments) != 1 {
		t.Fatalf("after compaction: batches %v, segments %v", batches, segments)
	}
	seg, err := l.read(context.Background(), segments[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(seg.Owners) != 9 || len(seg.Forgotten) != 1 {
		t.Fatalf("segment holds %d owners and %d tombstones, want 9 and 1", len(seg.Owners), len(seg.Forgotten))
	}
	if len(l.docs) != 1 {
		t.Fatalf("the log still counts %d documents", len(l.docs))
	}
	fresh := opened(t, storage)
	for i := range 10 {
		_, ok := fresh.Get(uuidN(i))
		if ok != (i != 4) {
			t.Fatalf("after compaction Get(%d) found = %v", i, ok)
		}
	}
	// Nothing to merge: one segment stays as it is.
	if err := l.compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, again := documents(t, storage); len(again) != 1 || again[0] != segments[0] {
		t.Fatalf("a lone segment was rewritten: %v", again)
	}
}

// TestCompactTriggers: the batch that brings their number to compactAfter
// starts a compaction in the background.
func TestCompactTriggers(t *testing.T) {
	storage := plainStorage{&certmagic.FileStorage{Path: t.TempDir()}}
	l := opened(t, storage)
	for i := range compactAfter {
		if err := l.Append(Entry{ID: uuidN(i), OrgID: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		batches, segments := documents(t, storage)
		if len(segments) == 1 && len(batches) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no compaction: %d batches, %d segments", len(batches), len(segments))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := opened(t, storage).Len(); n != compactAfter {
		t.Fatalf("after compaction %d owners, want %d", n, compactAfter)
	}
}

// vanishingStorage compacts the log the first time a batch is read, as
// another instance would between this one's listing and its reading.
type vanishingStorage struct {
	certmagic.Storage
	other *Log
	once  sync.Once
}

func (v *vanishingStorage) Load(ctx context.Context, key string) ([]byte, error) {
	if isBatch(key) {
		var err error
		v.once.Do(func() { err = v.other.compact(ctx) })
		if err != nil {
			return nil, err
		}
	}
	return v.Storage.Load(ctx, key)
}

// TestLoadAcrossCompaction: documents merged away while being read are
// found in their segment.
func TestLoadAcrossCompaction(t *testing.T) {
	files := plainStorage{&certmagic.FileStorage{Path: t.TempDir()}}
	writer := opened(t, files)
	for i := range 5 {
		if err := writer.Append(Entry{ID: uuidN(i), OrgID: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	reader := opened(t, &vanishingStorage{Storage: files, other: open(files, testDir, nil)})
	if n := reader.Len(); n != 5 {
		t.Fatalf("read %d owners across a compaction, want 5", n)
	}
}

// TestCompactOldFiles: the append files of processes long gone are merged
// into a segment (a torn last line dropped); this process's own file, and
// a file another process may still append to, stay.
func TestCompactOldFiles(t *testing.T) {
	root := t.TempDir()
	files := &certmagic.FileStorage{Path: root}
	old := time.Now().Add(-2 * rotateAfter)
	a := writeAppendFile(t, root, old, []document{{Owners: []Entry{{ID: uuidN(1), OrgID: "a"}}}}, `{"owners":[{"id`)
	b := writeAppendFile(t, root, old.Add(time.Second), []document{{Owners: []Entry{{ID: uuidN(2), OrgID: "b"}}, Forgotten: []string{uuidN(1)}}}, "")
	recent := writeAppendFile(t, root, time.Now(), []document{{Owners: []Entry{{ID: uuidN(3), OrgID: "c"}}}}, "")
	l := opened(t, files)
	if err := l.Append(Entry{ID: uuidN(4), OrgID: "d"}); err != nil {
		t.Fatal(err)
	}
	mine := l.appender.current()
	if err := l.compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	keys, err := files.List(context.Background(), testDir, false)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	segments := 0
	for _, k := range keys {
		got[k] = true
		if kindOf(k) == 's' {
			segments++
		}
	}
	if got[a] || got[b] || !got[recent] || !got[mine] || segments != 1 || len(keys) != 3 {
		t.Fatalf("after compaction: %v", keys)
	}
	fresh := opened(t, files)
	for i, want := range []bool{false, false, true, true, true} {
		if _, ok := fresh.Get(uuidN(i)); ok != want {
			t.Errorf("record %d found = %v, want %v", i, ok, want)
		}
	}
}

// TestCompactKeepsEntriesItHasNotRead: an instance compacts documents
// another instance wrote after its last reading. Their entries reach its
// memory as the segment it writes is taken as read and the documents are
// deleted; before, that instance never found those owners again, not even
// after Refresh (a fresh reader did).
func TestCompactKeepsEntriesItHasNotRead(t *testing.T) {
	storage := plainStorage{&certmagic.FileStorage{Path: t.TempDir()}}
	a := opened(t, storage)
	b := opened(t, storage)
	for i := range 3 {
		if err := a.Append(Entry{ID: uuidN(i), OrgID: "org-a"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Append(Entry{ID: uuidN(100), OrgID: "org-b"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Forget(uuidN(1)); err != nil {
		t.Fatal(err)
	}
	// A compacts before it has read B's batches.
	if err := a.compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if batches, segments := documents(t, storage); len(batches) != 0 || len(segments) != 1 {
		t.Fatalf("after compaction: batches %v, segments %v", batches, segments)
	}
	if err := a.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if org, ok := a.Get(uuidN(100)); !ok || org != "org-b" {
		t.Fatalf("after A's compaction and Refresh, B's record is not found by A (%q, %v)", org, ok)
	}
	if _, ok := a.Get(uuidN(1)); ok {
		t.Fatal("B's tombstone, compacted by A, does not apply in A's memory")
	}
	if err := a.Append(Entry{ID: uuidN(100), OrgID: "org-a"}); !errors.Is(err, ErrTaken) {
		t.Fatalf("A takes B's record for another create: %v, want ErrTaken", err)
	}
}

// TestCompactKeepsTheEarliestOwner: two instances each wrote an owner of
// one id (neither had read the other's). A segment keeps the owner every
// reader of the two documents keeps, the one created first, whatever the
// order the documents are listed in; it used to keep the first listed.
func TestCompactKeepsTheEarliestOwner(t *testing.T) {
	storage := plainStorage{&certmagic.FileStorage{Path: t.TempDir()}}
	now := time.Now()
	id := uuidN(3)
	// The later created owner is in the document listed first.
	storeAt(t, storage, 'b', now.Add(-time.Minute), document{Owners: []Entry{{ID: id, OrgID: "org-b", CreatedAt: stamp(now.Add(-time.Minute))}}})
	storeAt(t, storage, 'b', now, document{Owners: []Entry{{ID: id, OrgID: "org-a", CreatedAt: stamp(now.Add(-time.Hour))}}})
	l := opened(t, storage)
	if org, _ := l.Get(id); org != "org-a" {
		t.Fatalf("before compaction: owner %q, want org-a", org)
	}
	if err := l.compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if org, _ := opened(t, storage).Get(id); org != "org-a" {
		t.Fatalf("a reader of the segment: owner %q, want org-a", org)
	}
}
