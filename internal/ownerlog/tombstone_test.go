package ownerlog

import (
	"context"
	"fmt"
	"slices"
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
