package ownerlog

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
)

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
	// An append file's size does not move with its next line (zeros are
	// filled ahead), so finding that line below rests on the time.
	settle(t, root)
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

// TestRefreshSkipsUnreadableFile: another process's append file past the
// limit is skipped, and once the directory has settled it costs a reading
// nothing: no listing to find whether it grew.
func TestRefreshSkipsUnreadableFile(t *testing.T) {
	lowerDocumentLimit(t, 64<<10)
	root := t.TempDir()
	files := &certmagic.FileStorage{Path: root}
	owners := make([]Entry, 2000) // some 120 KB
	for i := range owners {
		owners[i] = Entry{ID: uuidN(100 + i), OrgID: "b"}
	}
	writeAppendFile(t, root, time.Now(), []document{{Owners: owners}}, "")
	writeAppendFile(t, root, time.Now(), []document{{Owners: []Entry{{ID: uuidN(1), OrgID: "a"}}}}, "")
	settle(t, root)
	storage := &countingStorage{Storage: files}
	reader := opened(t, storage)
	if _, ok := reader.Get(uuidN(1)); !ok {
		t.Fatal("the readable file was not read")
	}
	if _, ok := reader.Get(uuidN(100)); ok {
		t.Fatal("a file past the limit was read")
	}
	before := storage.listings()
	for range 3 {
		if err := reader.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := storage.listings() - before; n != 0 {
		t.Fatalf("%d listings of a settled directory holding a skipped file", n)
	}
}

// settle makes the log's directory under root and its files look settled:
// their times a minute old.
func settle(t *testing.T, root string) {
	t.Helper()
	past := time.Now().Add(-time.Minute)
	dir := filepath.Join(root, filepath.FromSlash(testDir))
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(names, dir) {
		if err := os.Chtimes(name, past, past); err != nil {
			t.Fatal(err)
		}
	}
}
