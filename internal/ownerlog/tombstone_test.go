package ownerlog

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
)

// storeAt writes doc as a document of kind ('b' or 's') named for at.
func storeAt(t *testing.T, storage certmagic.Storage, kind byte, at time.Time, doc document) {
	t.Helper()
	key := fmt.Sprintf("%s/%c%020d-%s.json", testDir, kind, at.UnixNano(), randomHex(4))
	if err := storage.Store(context.Background(), key, appendDocument(nil, doc)); err != nil {
		t.Fatal(err)
	}
}

// TestTombstonesExpire: a tombstone keeps the time of its forgetting
// through compactions (a segment's name is only when it was written), and
// once that time is past tombstoneCutoff (two retentions and a margin) it
// is dropped, from storage and from memory: no document that could hold
// the entry it forgot is left. Before, compaction copied every tombstone
// into each new segment, and memory kept every forgotten id, for good.
func TestTombstonesExpire(t *testing.T) {
	storage := plainStorage{&certmagic.FileStorage{Path: t.TempDir()}}
	now := time.Now()
	secs := func(d time.Duration) int64 { return now.Add(-d).Unix() }
	// Forgotten 6h ago, undated: the batch's name dates it.
	storeAt(t, storage, 'b', now.Add(-6*time.Hour), document{Owners: []Entry{}, Forgotten: []string{uuidN(1)}})
	// Forgotten an hour ago, undated.
	storeAt(t, storage, 'b', now.Add(-time.Hour), document{Owners: []Entry{}, Forgotten: []string{uuidN(2)}})
	// A recent segment holding tombstones of an earlier compaction, with
	// their times: one 6h old, one 30 minutes.
	storeAt(t, storage, 's', now.Add(-time.Minute), document{
		Owners:    []Entry{{ID: uuidN(5), OrgID: "a", CreatedAt: stamp(now.Add(-time.Minute))}},
		Forgotten: []string{uuidN(3), uuidN(4)}, ForgottenAt: []int64{secs(6 * time.Hour), secs(30 * time.Minute)},
	})

	l := open(storage, testDir, nil, 2*time.Hour)
	defer l.Destruct()
	if err := l.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := goneIDs(l); fmt.Sprint(got) != fmt.Sprint([]string{uuidN(2), uuidN(4)}) {
		t.Errorf("in memory, forgotten: %v; want the two within two retentions", got)
	}
	if err := l.compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, segments := documents(t, storage)
	if len(segments) != 1 {
		t.Fatalf("segments %v, want one", segments)
	}
	seg, err := l.read(context.Background(), segments[0])
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{uuidN(2): secs(time.Hour), uuidN(4): secs(30 * time.Minute)}
	got := map[string]int64{}
	for _, ts := range seg.tombstones(0) {
		got[ts.id] = int64(ts.at)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the segment's tombstones: %v, want %v (id: when forgotten)", got, want)
	}
	if len(seg.Owners) != 1 {
		t.Errorf("the segment holds %d owners, want 1", len(seg.Owners))
	}

	// Five hours on, the pass drops them from memory too.
	if _, _, err := l.Expire(context.Background(), now.Add(5*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := goneIDs(l); len(got) != 0 {
		t.Errorf("forgotten ids held past the retention: %v", got)
	}
}

// Without a retention every tombstone is kept, with its time.
func TestTombstonesKeptWithoutRetention(t *testing.T) {
	storage := plainStorage{&certmagic.FileStorage{Path: t.TempDir()}}
	old := time.Now().Add(-100 * 24 * time.Hour)
	storeAt(t, storage, 'b', old, document{Owners: []Entry{}, Forgotten: []string{uuidN(1)}})
	storeAt(t, storage, 'b', old.Add(time.Hour), document{Owners: []Entry{{ID: uuidN(1), OrgID: "a"}, {ID: uuidN(2), OrgID: "a"}}})
	l := opened(t, storage)
	if err := l.compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, segments := documents(t, storage)
	seg, err := l.read(context.Background(), segments[0])
	if err != nil {
		t.Fatal(err)
	}
	if ts := seg.tombstones(0); len(ts) != 1 || ts[0].id != uuidN(1) || int64(ts[0].at) != old.Unix() {
		t.Errorf("tombstones %v, want uuid 1 dated by its batch (%d)", ts, old.Unix())
	}
	if _, ok := opened(t, storage).Get(uuidN(1)); ok {
		t.Error("a forgotten record came back")
	}
}

// goneIDs returns the forgotten ids held in memory, sorted.
func goneIDs(l *Log) []string {
	l.idx.mu.RLock()
	defer l.idx.mu.RUnlock()
	var ids []string
	for id := range l.idx.gone {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// A full append file (never merged) holds an owner whose tombstone is in
// another file. Compaction past one retention must keep the tombstone:
// the full file is deleted only later, and until then a fresh reading
// (another instance, a restart) would find the owner again.
func TestTombstoneKeptWhileItsEntryMayBeStored(t *testing.T) {
	storage := plainStorage{&certmagic.FileStorage{Path: t.TempDir()}}
	now := time.Now()
	t0 := now.Add(-3 * time.Hour)       // a1's name
	created := t0.Add(10 * time.Minute) // E's creation (a1 takes lines for an hour)
	forgot := created.Add(2 * time.Second)
	e := uuidN(999999)

	// a1: a full append file holding E.
	var a1 []byte
	owners := make([]Entry, 0, segmentSize/2)
	for i := range segmentSize/2 - 1 {
		owners = append(owners, Entry{ID: uuidN(i), OrgID: "other", CreatedAt: stamp(created)})
	}
	owners = append(owners, Entry{ID: e, OrgID: "org-a", CreatedAt: stamp(created)})
	a1 = append(appendDocument(a1, document{Owners: owners}), '\n')
	key1 := fmt.Sprintf("%s/a%020d-%s.jsonl", testDir, t0.UnixNano(), randomHex(4))
	if err := storage.Store(context.Background(), key1, a1); err != nil {
		t.Fatal(err)
	}
	// a2: the next file, holding E's tombstone.
	a2 := append(appendDocument(nil, document{Owners: []Entry{}}.withTombstones([]tombstone{{id: e, at: unixSeconds(forgot.Unix())}})), '\n')
	key2 := fmt.Sprintf("%s/a%020d-%s.jsonl", testDir, created.Add(time.Second).UnixNano(), randomHex(4))
	if err := storage.Store(context.Background(), key2, a2); err != nil {
		t.Fatal(err)
	}
	// Some other small document, so that there are two to merge.
	storeAt(t, storage, 'b', now.Add(-time.Minute), document{Owners: []Entry{{ID: uuidN(777777), OrgID: "x", CreatedAt: stamp(now.Add(-time.Minute))}}})

	if got, ok := opened(t, storage).Get(e); ok {
		t.Fatalf("precondition: E found (%s) before any compaction", got)
	}

	l := open(storage, testDir, nil, 2*time.Hour)
	defer l.Destruct()
	if err := l.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := l.compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Expire(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	// The retention is removed (or raised): a fresh reading of storage.
	if got, ok := opened(t, storage).Get(e); ok {
		t.Errorf("a forgotten owner came back (org %q): its tombstone was dropped while its entry is still stored", got)
	}
}

// lowerDocumentLimit lowers the largest document read back to n for the
// test, so that passing it takes a few megabytes, not tens.
func lowerDocumentLimit(t *testing.T, n int64) {
	t.Helper()
	documentLimit.Store(n)
	t.Cleanup(func() { documentLimit.Store(0) })
}

// manyTombstones returns a document forgetting n ids from the n-th on.
func manyTombstones(from, n int, at time.Time) document {
	ts := make([]tombstone, n)
	for i := range ts {
		ts[i] = tombstone{id: fmt.Sprintf("10000000-0000-4000-8000-%012d", from+i), at: unixSeconds(at.Unix())}
	}
	return document{Owners: []Entry{}}.withTombstones(ts)
}

// TestTombstonesDoNotBlockReading: without owner_retention every
// tombstone (an owner forgotten after a failed create) is kept for good.
// Compaction splits them across segments as it splits owners, so no
// segment grows past what a reading accepts. Before, it wrote them all
// into its first segment, whatever their number; once that passed
// maxDocument every reading failed on it and read nothing after it: a
// fresh start held no owner at all.
func TestTombstonesDoNotBlockReading(t *testing.T) {
	// 24,000 tombstones are some 1.2 MB in one document, past the limit;
	// a full segment's 16,384 entries stay under it.
	lowerDocumentLimit(t, 1<<20)
	storage := plainStorage{&certmagic.FileStorage{Path: t.TempDir()}}
	w := opened(t, storage)
	if err := w.Append(Entry{ID: uuidN(1), OrgID: "org-a"}); err != nil {
		t.Fatal(err)
	}
	// Failed creates over time: batches of tombstones (here written
	// directly, 3 documents of 8,000 forgotten ids each).
	now := time.Now()
	for d := range 3 {
		storeAt(t, storage, 'b', now.Add(time.Duration(d)*time.Millisecond), manyTombstones(d*8000, 8000, now))
	}
	if err := w.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := w.compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	fresh := open(storage, testDir, nil)
	err := fresh.Refresh(context.Background())
	if _, ok := fresh.Get(uuidN(1)); !ok || err != nil {
		t.Fatalf("a fresh start finds no owner (Refresh: %v)", err)
	}
	if n := len(goneIDs(fresh)); n != 24000 {
		t.Fatalf("a fresh start holds %d forgotten ids, want 24000", n)
	}
	batches, segments := documents(t, storage)
	if len(batches) != 0 || len(segments) < 2 {
		t.Fatalf("after compaction: batches %v, segments %v; want the tombstones split", batches, segments)
	}
	forgotten := 0
	for _, s := range segments {
		b, err := storage.Load(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 1<<20 {
			t.Errorf("segment %s: %d bytes, more than a reading accepts", s, len(b))
		}
		doc, err := w.read(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(doc.Owners) + len(doc.Forgotten); n > segmentSize {
			t.Errorf("segment %s: %d entries, more than %d", s, n, segmentSize)
		}
		forgotten += len(doc.Forgotten)
	}
	if forgotten != 24000 {
		t.Errorf("the segments hold %d tombstones, want 24000", forgotten)
	}
	// Segments of tombstones are full: the next compaction leaves them.
	for i := range 2 {
		if err := w.Append(Entry{ID: uuidN(10 + i), OrgID: "org-a"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, again := documents(t, storage)
	kept := 0
	for _, s := range again {
		if slices.Contains(segments, s) {
			kept++
		}
	}
	if kept < len(segments)-1 {
		t.Errorf("the next compaction rewrote the segments of tombstones: %v, then %v", segments, again)
	}
}

// loadCounter counts the loads of each key.
type loadCounter struct {
	certmagic.Storage
	mu    sync.Mutex
	loads map[string]int
}

func (c *loadCounter) Load(ctx context.Context, key string) ([]byte, error) {
	c.mu.Lock()
	c.loads[key]++
	c.mu.Unlock()
	return c.Storage.Load(ctx, key)
}

func (c *loadCounter) count(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loads[key]
}

// TestLoadSkipsUnreadableDocument: a document that cannot be read (past
// the limit, as an earlier version's compaction could write one, or not
// JSON) is skipped with an error logged, and not read again: the others
// are read, a reading still succeeds, and compaction leaves the document
// alone. Before, the first such document failed every reading and stopped
// it.
func TestLoadSkipsUnreadableDocument(t *testing.T) {
	lowerDocumentLimit(t, 1<<20)
	files := &certmagic.FileStorage{Path: t.TempDir()}
	storage := &loadCounter{Storage: plainStorage{files}, loads: map[string]int{}}
	w := opened(t, storage)
	if err := w.Append(Entry{ID: uuidN(1), OrgID: "org-a"}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	big := manyTombstones(0, 24000, now)
	big.Owners = []Entry{{ID: uuidN(5), OrgID: "org-b"}}
	storeAt(t, storage, 's', now.Add(-time.Hour), big)
	bad := fmt.Sprintf("%s/b%020d-%s.json", testDir, now.Add(-time.Minute).UnixNano(), randomHex(4))
	if err := storage.Store(context.Background(), bad, []byte(`{"owners":[{"id"`)); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(Entry{ID: uuidN(2), OrgID: "org-a"}); err != nil {
		t.Fatal(err)
	}

	l := opened(t, storage)
	for id, want := range map[string]bool{uuidN(1): true, uuidN(2): true, uuidN(5): false} {
		if _, ok := l.Get(id); ok != want {
			t.Errorf("%s found: %v, want %v", id, ok, want)
		}
	}
	_, segments := documents(t, storage)
	if len(segments) != 1 {
		t.Fatalf("segments %v", segments)
	}
	oversized := segments[0]
	loads := []int{storage.count(oversized), storage.count(bad)}
	for i := range 2 {
		if err := w.Append(Entry{ID: uuidN(3 + i), OrgID: "org-a"}); err != nil {
			t.Fatal(err)
		}
		if err := l.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if again := []int{storage.count(oversized), storage.count(bad)}; fmt.Sprint(again) != fmt.Sprint(loads) {
		t.Errorf("unreadable documents were read again: %v loads, then %v", loads, again)
	}
	if err := l.compact(context.Background()); err != nil {
		t.Fatalf("compaction fails on an unreadable document: %v", err)
	}
	keys, err := storage.List(context.Background(), testDir, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(keys, oversized) || !slices.Contains(keys, bad) {
		t.Errorf("compaction deleted an unreadable document: %v", keys)
	}
	if _, ok := opened(t, storage).Get(uuidN(2)); !ok {
		t.Error("an owner merged beside unreadable documents is lost")
	}
}
