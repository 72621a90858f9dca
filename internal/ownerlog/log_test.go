package ownerlog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
)

const testDir = "proofgate/upstream-records/log"

func uuidN(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

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

// gatedStorage holds the first Store until released, telling when it
// started: the test then queues more while the first write is in flight.
type gatedStorage struct {
	certmagic.Storage
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (g *gatedStorage) Store(ctx context.Context, key string, value []byte) error {
	first := false
	g.once.Do(func() { first = true })
	if first {
		close(g.entered)
		<-g.release
	}
	return g.Storage.Store(ctx, key, value)
}

// TestGroupCommit: appends that arrive while a write is in flight share the
// next write, and every one is in memory and in storage when it returns.
func TestGroupCommit(t *testing.T) {
	storage := &gatedStorage{Storage: &certmagic.FileStorage{Path: t.TempDir()}, entered: make(chan struct{}), release: make(chan struct{})}
	l := opened(t, storage)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	appendOne := func(i int) {
		defer wg.Done()
		if err := l.Append(Entry{ID: uuidN(i), OrgID: fmt.Sprint("org-", i%3)}); err != nil {
			errs <- err
		}
	}
	wg.Add(1)
	go appendOne(0)
	<-storage.entered
	for i := 1; i < 50; i++ {
		wg.Add(1)
		go appendOne(i)
	}
	for queued := 0; queued < 49; {
		time.Sleep(time.Millisecond)
		l.commit.mu.Lock()
		queued = len(l.commit.queue)
		l.commit.mu.Unlock()
	}
	close(storage.release)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	batches, _ := documents(t, storage)
	if len(batches) != 2 {
		t.Fatalf("%d batch documents for 50 appends (one in flight, 49 queued), want 2", len(batches))
	}
	fresh := opened(t, storage.Storage)
	for i := range 50 {
		for _, lg := range []*Log{l, fresh} {
			if org, ok := lg.Get(uuidN(i)); !ok || org != fmt.Sprint("org-", i%3) {
				t.Fatalf("Get(%d) = %q, %v", i, org, ok)
			}
		}
	}
}

// failingStorage fails every Store while fail is set.
type failingStorage struct {
	certmagic.Storage
	mu   sync.Mutex
	fail bool
}

func (f *failingStorage) Store(ctx context.Context, key string, value []byte) error {
	f.mu.Lock()
	fail := f.fail
	f.mu.Unlock()
	if fail {
		return errors.New("disk full")
	}
	return f.Storage.Store(ctx, key, value)
}

// TestAppendFails: a failed write is reported to its callers and leaves
// nothing behind, in memory or in storage; the next append works.
func TestAppendFails(t *testing.T) {
	storage := &failingStorage{Storage: &certmagic.FileStorage{Path: t.TempDir()}, fail: true}
	l := opened(t, storage)
	if err := l.Append(Entry{ID: uuidN(1), OrgID: "a"}); err == nil {
		t.Fatal("Append succeeded on failing storage")
	}
	if _, ok := l.Get(uuidN(1)); ok {
		t.Fatal("a failed append is in memory")
	}
	if b, s := documents(t, storage); len(b)+len(s) != 0 {
		t.Fatalf("a failed append left documents %v %v", b, s)
	}
	storage.mu.Lock()
	storage.fail = false
	storage.mu.Unlock()
	if err := l.Append(Entry{ID: uuidN(2), OrgID: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := opened(t, storage).Get(uuidN(2)); !ok {
		t.Fatal("the append after the failure is not in storage")
	}
}

// TestForget: a forgotten record is gone from memory and, through its
// tombstone, from every reading of storage, whatever the order.
func TestForget(t *testing.T) {
	storage := &certmagic.FileStorage{Path: t.TempDir()}
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
	x.add(nil, []string{uuidN(1)})
	x.add([]Entry{{ID: uuidN(1), OrgID: "a"}}, nil)
	x.adopt(uuidN(1), "a")
	if _, ok := x.get(uuidN(1)); ok {
		t.Fatal("an entry read after its tombstone came back")
	}
}

// TestOtherInstance: a record another instance committed to the shared
// storage is found after Refresh, which a lookup miss calls.
func TestOtherInstance(t *testing.T) {
	storage := &certmagic.FileStorage{Path: t.TempDir()}
	a, b := opened(t, storage), opened(t, storage)
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

// TestCompact: compaction merges the batches into one segment, drops the
// forgotten entry, keeps its tombstone, and a fresh reading finds the
// same owners; what it cannot merge (a full segment) stays.
func TestCompact(t *testing.T) {
	storage := &certmagic.FileStorage{Path: t.TempDir()}
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
	storage := &certmagic.FileStorage{Path: t.TempDir()}
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
	files := &certmagic.FileStorage{Path: t.TempDir()}
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

func TestParseUUID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"3fa85f64-5717-4562-b3fc-2c963f66afa6", true},
		{"3FA85F64-5717-4562-B3FC-2C963F66AFA6", false}, // another spelling: kept as a string
		{"3fa85f64x5717-4562-b3fc-2c963f66afa6", false},
		{"3fa85f64-5717-4562-b3fc-2c963f66afa", false},
		{"{3fa85f64-5717-4562-b3fc-2c963f66afa}", false},
		{"3fa85f64-5717-4562-b3fc-2c963f66afg6", false},
		{"", false},
	} {
		u, ok := parseUUID(tc.id)
		if ok != tc.ok {
			t.Errorf("parseUUID(%q) ok = %v", tc.id, ok)
		}
		if ok && fmt.Sprintf("%x-%x-%x-%x-%x", u[:4], u[4:6], u[6:8], u[8:10], u[10:]) != tc.id {
			t.Errorf("parseUUID(%q) = %x", tc.id, u)
		}
	}
	// Two spellings of one UUID are two records.
	x := newIndex()
	x.add([]Entry{{ID: "3fa85f64-5717-4562-b3fc-2c963f66afa6", OrgID: "a"}}, nil)
	if _, ok := x.get("3FA85F64-5717-4562-B3FC-2C963F66AFA6"); ok {
		t.Fatal("an upper-case spelling found the lower-case record")
	}
}

// countingStorage counts listings.
type countingStorage struct {
	certmagic.Storage
	mu    sync.Mutex
	lists int
}

func (c *countingStorage) List(ctx context.Context, prefix string, recursive bool) ([]string, error) {
	c.mu.Lock()
	c.lists++
	c.mu.Unlock()
	return c.Storage.List(ctx, prefix, recursive)
}

func (c *countingStorage) listings() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lists
}

// TestRefreshUnchanged: once the directory has settled, a reading costs a
// stat and no listing; a document added by another instance is still
// found.
func TestRefreshUnchanged(t *testing.T) {
	root := t.TempDir()
	files := &certmagic.FileStorage{Path: root}
	writer := opened(t, files)
	if err := writer.Append(Entry{ID: uuidN(1), OrgID: "a"}); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Minute)
	if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(testDir)), past, past); err != nil {
		t.Fatal(err)
	}
	storage := &countingStorage{Storage: files}
	reader := opened(t, storage)
	before := storage.listings()
	for range 3 {
		if err := reader.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := storage.listings() - before; n != 0 {
		t.Fatalf("%d listings of a settled directory", n)
	}
	if err := writer.Append(Entry{ID: uuidN(2), OrgID: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := reader.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if org, ok := reader.Get(uuidN(2)); !ok || org != "b" {
		t.Fatalf("a record added after the directory settled: %q, %v", org, ok)
	}
}
