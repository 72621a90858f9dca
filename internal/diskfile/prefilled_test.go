package diskfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func openPrefilled(t *testing.T) (*Prefilled, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log")
	p, err := CreatePrefilled(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.File().Close() })
	return p, path
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestPrefilledWrites: appends land one after the other in zeros filled
// ahead of them, so the file's size (the metadata a sync would have to
// write) changes only when a fill does, and the content reads back up to
// the first NUL.
func TestPrefilledWrites(t *testing.T) {
	p, path := openPrefilled(t)
	var want []byte
	line := append(bytes.Repeat([]byte("x"), 999), '\n')
	sizes := map[int64]bool{}
	for range 200 { // 200 KB: the file doubles twice (64, 128, 256 KiB)
		if err := p.Write(line); err != nil {
			t.Fatal(err)
		}
		if err := p.Sync(); err != nil {
			t.Fatal(err)
		}
		want = append(want, line...)
		sizes[fileSize(t, path)] = true
	}
	for _, s := range []int64{64 << 10, 128 << 10, 256 << 10} {
		if !sizes[s] {
			t.Errorf("file sizes seen %v, want the fills to reach %d", sizes, s)
		}
	}
	if len(sizes) != 3 {
		t.Errorf("file sizes seen %v: the size changed other than by a fill", sizes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if end := ContentEnd(b); !bytes.Equal(b[:end], want) || int64(end) != p.Size() {
		t.Fatalf("content %d bytes (Size %d), want %d", end, p.Size(), len(want))
	}
	if bytes.ContainsFunc(b[len(want):], func(r rune) bool { return r != 0 }) {
		t.Fatal("the fill after the content is not zeros")
	}
}

// TestPrefilledLargeWrite: a write larger than any fill gets a fill that
// holds it.
func TestPrefilledLargeWrite(t *testing.T) {
	p, path := openPrefilled(t)
	big := bytes.Repeat([]byte("y"), 3*fillMax+5)
	if err := p.Write(big); err != nil {
		t.Fatal(err)
	}
	if got := fileSize(t, path); got < int64(len(big)) || got > int64(len(big))+fillMax+fillMin {
		t.Fatalf("file size %d for a write of %d", got, len(big))
	}
	if p.Size() != int64(len(big)) {
		t.Fatalf("Size %d, want %d", p.Size(), len(big))
	}
}

// TestPrefilledFinishAndDiscard: Finish gives the zeros back and keeps
// the content; Discard also drops what followed a size; writing goes on
// after either.
func TestPrefilledFinishAndDiscard(t *testing.T) {
	cases := []struct {
		name string
		cut  func(p *Prefilled) error
		want string
	}{
		{"finish", (*Prefilled).Finish, "one\ntwo\n"},
		{"discard", func(p *Prefilled) error { return p.Discard(4) }, "one\n"},
		{"discard past the end", func(p *Prefilled) error { return p.Discard(1 << 30) }, "one\ntwo\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, path := openPrefilled(t)
			for _, s := range []string{"one\n", "two\n"} {
				if err := p.Write([]byte(s)); err != nil {
					t.Fatal(err)
				}
			}
			if err := tc.cut(p); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.want {
				t.Fatalf("file %q, want %q", b, tc.want)
			}
			if err := p.Write([]byte("three\n")); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			if got := string(b[:ContentEnd(b)]); got != tc.want+"three\n" {
				t.Fatalf("after another write %q, want %q", got, tc.want+"three\n")
			}
		})
	}
}

// TestCreatePrefilledExisting: a file that exists is not taken over, and
// is left as it was.
func TestCreatePrefilledExisting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte("one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := CreatePrefilled(path); !errors.Is(err, os.ErrExist) {
		t.Fatalf("CreatePrefilled over an existing file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\n" {
		t.Fatalf("the existing file is now %q", b)
	}
}

func TestContentEnd(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"a\n", 2},
		{"a\n\x00\x00", 2},
		{"a\nb\x00c\n", 3},
	} {
		if got := ContentEnd([]byte(tc.in)); got != tc.want {
			t.Errorf("ContentEnd(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
