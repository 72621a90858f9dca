package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/diskfile"
)

type doc struct {
	Name string `json:"name"`
}

func TestPutGetListDelete(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := New(&certmagic.FileStorage{Path: dir}, "things")

	if err := s.Put(ctx, "a-1", doc{"one"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "b_2", doc{"two"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "proofgate", "things", "a-1.json")); err != nil {
		t.Fatalf("not under proofgate/things/: %v", err)
	}
	var got doc
	if err := s.Get(ctx, "a-1", &got); err != nil || got.Name != "one" {
		t.Fatalf("Get = %v, %v", got, err)
	}
	names, err := s.List(ctx)
	slices.Sort(names)
	if err != nil || !slices.Equal(names, []string{"a-1", "b_2"}) {
		t.Fatalf("List = %v, %v", names, err)
	}
	if err := s.Delete(ctx, "a-1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "a-1"); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
	if err := s.Get(ctx, "a-1", &got); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete = %v", err)
	}
	empty, err := New(&certmagic.FileStorage{Path: dir}, "none").List(ctx)
	if err != nil || len(empty) != 0 {
		t.Fatalf("List of an empty namespace = %v, %v", empty, err)
	}
}

func TestKeysAreConfined(t *testing.T) {
	ctx := context.Background()
	s := New(&certmagic.FileStorage{Path: t.TempDir()}, "things")
	for _, name := range []string{"", ".", "..", "../escape", "a/b", "a b", "ä", string(make([]byte, 201))} {
		if err := s.Put(ctx, name, doc{}); err == nil {
			t.Errorf("Put(%q) succeeded", name)
		}
		var d doc
		if err := s.Get(ctx, name, &d); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q) = %v, want ErrNotFound", name, err)
		}
	}
}

func TestStorageFailureIsUnavailable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := New(&certmagic.FileStorage{Path: dir}, "things")
	// A file where the namespace directory should be makes every write fail.
	if err := os.MkdirAll(filepath.Join(dir, "proofgate"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "proofgate", "things"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "a", doc{}); !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("Put on broken storage = %v, want ErrUnavailable", err)
	}
}

func TestUndecodableDocumentIsNotUnavailable(t *testing.T) {
	ctx := context.Background()
	fs := &certmagic.FileStorage{Path: t.TempDir()}
	if err := fs.Store(ctx, "proofgate/things/a.json", []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	var d doc
	err := New(fs, "things").Get(ctx, "a", &d)
	if err == nil || errors.Is(err, backend.ErrUnavailable) || errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a corrupt document = %v", err)
	}
}

// TestPutSyncsTheDirectory: on file_system storage a Put syncs the
// document's directory after the file is renamed into place (certmagic
// syncs the file only), so that the document's name survives a power
// loss; a failing sync fails the Put. Other storages are left to
// themselves.
func TestPutSyncsTheDirectory(t *testing.T) {
	defer func(f func(string) error) { syncDir = f }(syncDir)
	var synced []string
	fail := false
	syncDir = func(dir string) error {
		synced = append(synced, dir)
		if fail {
			return errors.New("EIO")
		}
		return diskfile.SyncDir(dir)
	}
	root := t.TempDir()
	files := &certmagic.FileStorage{Path: root}
	s := New(files, "ns")
	if err := s.Put(context.Background(), "doc", map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Dir(files.Filename(s.Key("doc"))); len(synced) != 1 || synced[0] != want {
		t.Fatalf("synced %v, want %s", synced, want)
	}
	fail = true
	if err := s.Put(context.Background(), "doc", map[string]int{"a": 2}); !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("a failing directory sync: %v, want ErrUnavailable", err)
	}
	synced = nil
	if err := New(wrapped{files}, "ns").Put(context.Background(), "other", 1); err != nil || len(synced) != 0 {
		t.Fatalf("another storage: %v, synced %v", err, synced)
	}
}

// wrapped hides the file storage's type.
type wrapped struct{ *certmagic.FileStorage }
