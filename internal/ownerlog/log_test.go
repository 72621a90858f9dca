package ownerlog

import (
	"bytes"
	"context"
	"encoding/json"
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
	for name := range sinks("") {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			testRefreshUnchanged(t, root, sinks(root)[name])
		})
	}
}

func testRefreshUnchanged(t *testing.T, root string, files certmagic.Storage) {
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

// writeAppendFile writes an append file as a process would have, stamped
// at, with one line per document and then tail (an incomplete line).
func writeAppendFile(t *testing.T, root string, at time.Time, docs []document, tail string) string {
	t.Helper()
	key := fmt.Sprintf("%s/a%020d-%s.jsonl", testDir, at.UnixNano(), randomHex(4))
	var b []byte
	for _, d := range docs {
		line, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, line...), '\n')
	}
	b = append(b, tail...)
	name := filepath.Join(root, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return key
}

// TestAppendFile: on file_system storage commits are lines of one file;
// a line still being written (or cut by a crash) is read once complete.
func TestAppendFile(t *testing.T) {
	root := t.TempDir()
	files := &certmagic.FileStorage{Path: root}
	l := opened(t, files)
	for i := range 3 {
		if err := l.Append(Entry{ID: uuidN(i), OrgID: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Forget(uuidN(0)); err != nil {
		t.Fatal(err)
	}
	keys, err := files.List(context.Background(), testDir, false)
	if err != nil || len(keys) != 1 || kindOf(keys[0]) != 'a' {
		t.Fatalf("documents: %v, %v; want one append file", keys, err)
	}
	b, err := files.Load(context.Background(), keys[0])
	if err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Count(b, []byte{'\n'}); lines != 4 {
		t.Fatalf("%d lines for 4 commits:\n%s", lines, b)
	}

	// Another process's file, its last line half written.
	line := `{"owners":[{"id":"` + uuidN(9) + `","orgId":"b"}]}`
	other := writeAppendFile(t, root, time.Now(), []document{{Owners: []Entry{{ID: uuidN(8), OrgID: "b"}}}}, line[:20])
	reader := opened(t, files)
	if _, ok := reader.Get(uuidN(8)); !ok {
		t.Fatal("a complete line of another process's file was not read")
	}
	if _, ok := reader.Get(uuidN(9)); ok {
		t.Fatal("a half-written line was read")
	}
	if _, ok := reader.Get(uuidN(0)); ok {
		t.Fatal("a forgotten record was read")
	}
	f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(other)), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line[20:] + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := reader.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if org, ok := reader.Get(uuidN(9)); !ok || org != "b" {
		t.Fatalf("the line, once complete: %q, %v", org, ok)
	}
}

// TestAppendFileFails: a commit that cannot be written fails for its
// callers and leaves nothing in memory; the next starts a new file.
func TestAppendFileFails(t *testing.T) {
	root := t.TempDir()
	l := opened(t, &certmagic.FileStorage{Path: root})
	dir := filepath.Join(root, filepath.FromSlash(testDir))
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil { // a file where the directory goes
		t.Fatal(err)
	}
	if err := l.Append(Entry{ID: uuidN(1), OrgID: "a"}); err == nil {
		t.Fatal("Append succeeded without its directory")
	}
	if _, ok := l.Get(uuidN(1)); ok {
		t.Fatal("a failed append is in memory")
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(Entry{ID: uuidN(2), OrgID: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := opened(t, &certmagic.FileStorage{Path: root}).Get(uuidN(2)); !ok {
		t.Fatal("the append after the failure is not in storage")
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
