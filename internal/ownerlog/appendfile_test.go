package ownerlog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/diskfile"
)

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

// TestAppendFileZeroFilled: the file is zero-filled ahead of its lines
// (so a commit's sync writes no size), its zeros read as the end of the
// lines, and a file left gives them back.
func TestAppendFileZeroFilled(t *testing.T) {
	root := t.TempDir()
	files := &certmagic.FileStorage{Path: root}
	l := opened(t, files)
	for i := range 2 {
		if err := l.Append(Entry{ID: uuidN(i), OrgID: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := files.List(context.Background(), testDir, false)
	if err != nil || len(keys) != 1 {
		t.Fatalf("documents: %v, %v", keys, err)
	}
	name := filepath.Join(root, filepath.FromSlash(keys[0]))
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	end := diskfile.ContentEnd(b)
	if end == len(b) || bytes.Count(b[:end], []byte{'\n'}) != 2 {
		t.Fatalf("%d bytes of lines in a file of %d: want two lines, then zeros", end, len(b))
	}
	if org, ok := opened(t, files).Get(uuidN(1)); !ok || org != "a" {
		t.Fatalf("another instance reading the file: %q, %v", org, ok)
	}
	if err := l.Destruct(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(after, b[:end]) {
		t.Fatalf("the file once left is %d bytes, want its %d bytes of lines", len(after), end)
	}
}

// TestAppendFileLaterPageFirst: a reader may see a line's later page
// written before its earlier one (the earlier still zeros): that line is
// not read, nor skipped, until it is whole.
func TestAppendFileLaterPageFirst(t *testing.T) {
	root := t.TempDir()
	files := &certmagic.FileStorage{Path: root}
	line := `{"owners":[{"id":"` + uuidN(9) + `","orgId":"b"}]}` + "\n"
	torn := strings.Repeat("\x00", 20) + line[20:] + strings.Repeat("\x00", 100)
	key := writeAppendFile(t, root, time.Now(), []document{{Owners: []Entry{{ID: uuidN(8), OrgID: "b"}}}}, torn)
	reader := opened(t, files)
	if _, ok := reader.Get(uuidN(8)); !ok {
		t.Fatal("the whole line before was not read")
	}
	if _, ok := reader.Get(uuidN(9)); ok {
		t.Fatal("a line with zeros in it was read")
	}
	name := filepath.Join(root, filepath.FromSlash(key))
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	copy(b[bytes.IndexByte(b, 0):], line[:20])
	if err := os.WriteFile(name, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := reader.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if org, ok := reader.Get(uuidN(9)); !ok || org != "b" {
		t.Fatalf("the line, once whole: %q, %v", org, ok)
	}
}

// TestAppendFileFailingDisk: while every write fails (half a line reaching
// the file each time), the failed commits take their line back; the first
// leaves its file (no offset takes two lines, TestReaderAcrossATakenBackLine)
// and each next one removes the file it started, left empty. Once the disk
// recovers, what was acknowledged reads back. Each failed commit used to
// leave a file of its own: one more file for every failed create while
// the disk failed.
func TestAppendFileFailingDisk(t *testing.T) {
	defer func(w func(*diskfile.Prefilled, []byte) error) { writeLine = w }(writeLine)
	failing := false
	writeLine = func(w *diskfile.Prefilled, b []byte) error {
		if failing {
			return errors.Join(w.Write(b[:len(b)/2]), errors.New("no space left on device"))
		}
		return w.Write(b)
	}
	root := t.TempDir()
	l := opened(t, &certmagic.FileStorage{Path: root})
	if err := l.Append(Entry{ID: uuidN(1), OrgID: "a"}); err != nil {
		t.Fatal(err)
	}
	failing = true
	for i := range 20 {
		if err := l.Append(Entry{ID: uuidN(100 + i), OrgID: "a"}); err == nil {
			t.Fatal("an append succeeded on the failing disk")
		}
	}
	failing = false
	if err := l.Append(Entry{ID: uuidN(2), OrgID: "a"}); err != nil {
		t.Fatal(err)
	}
	var files []string
	_ = filepath.WalkDir(filepath.Join(root, filepath.FromSlash(testDir)), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 2 {
		t.Fatalf("%d files after 20 failed commits, want two (the one left at the first failure, the one after): %v", len(files), files)
	}
	again := opened(t, &certmagic.FileStorage{Path: root})
	for _, id := range []string{uuidN(1), uuidN(2)} {
		if _, ok := again.Get(id); !ok {
			t.Fatalf("%s, acknowledged, is not read back", id)
		}
	}
	if _, ok := again.Get(uuidN(100)); ok {
		t.Fatal("a failed append is read back")
	}
}

// TestReaderAcrossATakenBackLine: a commit's sync fails after its line
// reached the file, and another instance reads the file meanwhile: it
// holds the line's position past it. The next commit goes to a new file,
// so that reader still finds the next, acknowledged owner. Before, the
// writer cut the line away and wrote the next at the same offset, which
// the reader then skipped (or read garbled).
func TestReaderAcrossATakenBackLine(t *testing.T) {
	defer func(w func(*diskfile.Prefilled, []byte) error) { writeLine = w }(writeLine)
	files := &certmagic.FileStorage{Path: t.TempDir()}
	b := opened(t, files)
	a := opened(t, files)
	if err := b.Append(Entry{ID: uuidN(1), OrgID: "org-b"}); err != nil {
		t.Fatal(err)
	}
	fail := true
	writeLine = func(w *diskfile.Prefilled, line []byte) error {
		if err := w.Write(line); err != nil {
			return err
		}
		if fail {
			fail = false
			// A reads the shared file while the line is there.
			if err := a.Refresh(context.Background()); err != nil {
				t.Error(err)
			}
			return errors.New("fdatasync: input/output error")
		}
		return nil
	}
	if err := b.Append(Entry{ID: uuidN(2), OrgID: "org-b"}); err == nil {
		t.Fatal("the failing commit succeeded")
	}
	if err := b.Append(Entry{ID: uuidN(3), OrgID: "org-b"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if org, ok := a.Get(uuidN(3)); !ok || org != "org-b" {
		t.Fatalf("A does not find B's acknowledged owner (%q, %v)", org, ok)
	}
	// What a fresh reading finds: the acknowledged owners, not the line
	// taken back.
	fresh := opened(t, files)
	for id, want := range map[string]bool{uuidN(1): true, uuidN(2): false, uuidN(3): true} {
		if _, ok := fresh.Get(id); ok != want {
			t.Errorf("a fresh reading finds %s: %v, want %v", id, ok, want)
		}
	}
}
