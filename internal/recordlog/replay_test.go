package recordlog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestTornLastLineIsSkipped(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir)
	a, b := uuid.New(), uuid.New()
	if err := l.Put(a, doc(a, "request-sent")); err != nil {
		t.Fatal(err)
	}
	l.Close()
	// A crash during a second, unacknowledged write.
	f, err := os.OpenFile(l.path(files(t, dir)[0]), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, `{"id":%q,"v":1,"doc":{"record":{"id":`, b.String())
	f.Close()

	l2 := open(t, dir)
	mustGet(t, l2, a)
	if l2.Has(b) {
		t.Fatal("a torn line must not be a record")
	}
	// Writes go to a new file, after which the torn line stays last.
	if err := l2.Put(b, doc(b, "request-sent")); err != nil {
		t.Fatal(err)
	}
	l2.Close()
	l3 := open(t, dir)
	mustGet(t, l3, a)
	mustGet(t, l3, b)
}

func TestUnreadableLineInTheMiddleIsSkipped(t *testing.T) {
	dir := t.TempDir()
	a, b := uuid.New(), uuid.New()
	body := fmt.Sprintf("{\"id\":%q,\"v\":1,\"doc\":%s}\nnot a line\n{\"id\":%q,\"v\":1,\"doc\":%s}\n", a, doc(a, "x"), b, doc(b, "y"))
	if err := os.WriteFile(filepath.Join(dir, "0000000001.jsonl"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	l := open(t, dir)
	if got := mustGet(t, l, b); !bytes.Equal(got, doc(b, "y")) {
		t.Fatalf("b: %s", got)
	}
	mustGet(t, l, a)
}

// TestVersionsDecideNotFileOrder: a higher version in an older file wins
// over a lower one in a newer file, and a deletion wins over the versions
// up to its own wherever it is.
func TestVersionsDecideNotFileOrder(t *testing.T) {
	dir := t.TempDir()
	a, b, c := uuid.New(), uuid.New(), uuid.New()
	line := func(id uuid.UUID, v int, state string) string {
		if state == "" {
			return fmt.Sprintf("{\"id\":%q,\"v\":%d,\"deleted\":true}\n", id, v)
		}
		return fmt.Sprintf("{\"id\":%q,\"v\":%d,\"doc\":%s}\n", id, v, doc(id, state))
	}
	write := func(name string, lines ...string) {
		var s string
		for _, l := range lines {
			s += l
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("0000000001.jsonl", line(a, 3, "done"), line(b, 2, ""), line(c, 1, "old"))
	write("0000000002.jsonl", line(a, 2, "stale"), line(b, 1, "resurrected?"), line(c, 2, "new"), line(c, 2, "new, copied"))
	l := open(t, dir)
	if got := mustGet(t, l, a); !bytes.Equal(got, doc(a, "done")) {
		t.Fatalf("a: %s", got)
	}
	if l.Has(b) {
		t.Fatal("b: a deletion of version 2 must win over version 1")
	}
	if got := mustGet(t, l, c); !bytes.Equal(got, doc(c, "new, copied")) {
		t.Fatalf("c: %s (of equal versions the later is kept)", got)
	}
	// The next version of a continues from the highest.
	if err := l.Put(a, doc(a, "later")); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if got := mustGet(t, open(t, dir), a); !bytes.Equal(got, doc(a, "later")) {
		t.Fatalf("a after a write: %s", got)
	}
}

func FuzzParseLine(f *testing.F) {
	id := uuid.New()
	f.Add([]byte(fmt.Sprintf("{\"id\":%q,\"v\":7,\"doc\":{\"a\":1}}\n", id)))
	f.Add([]byte(fmt.Sprintf("{\"id\":%q,\"v\":7,\"deleted\":true}\n", id)))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, ok := parseLine(b)
		if !ok || p.deleted {
			return
		}
		d := b[p.docStart : p.docStart+p.docLen]
		if d[0] != '{' || d[len(d)-1] != '}' || !bytes.HasSuffix(b, []byte("}\n")) || p.ver == 0 {
			t.Fatalf("%q: %+v", b, p)
		}
		at := loc{n: uint32(p.docLen), ver: p.ver}
		if at.lineLen() != int64(len(b)) && bytes.HasPrefix(b[len(`{"id":"`)+36+len(`","v":`):], []byte(fmt.Sprint(p.ver))) {
			t.Fatalf("%q: line length %d, counted %d", b, len(b), at.lineLen())
		}
	})
}

// TestZeroFilledFileIsReadToItsZeros: a process that stopped without
// giving back the zeros filled ahead of its batches leaves them in its
// last file; its lines end at the first, with a torn line before them
// warned about and skipped, and clean zeros read silently. The zeros are
// longer than the reader's buffer.
func TestZeroFilledFileIsReadToItsZeros(t *testing.T) {
	zeros := string(make([]byte, 300<<10))
	for _, tc := range []struct {
		name  string
		tail  string
		warns int
	}{
		{"zeros", zeros, 0},
		{"a torn line, then zeros", `{"id":"0f`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a := uuid.New()
			body := fmt.Sprintf("{\"id\":%q,\"v\":1,\"doc\":%s}\n", a, doc(a, "x")) + tc.tail + zeros
			if err := os.WriteFile(filepath.Join(dir, "0000000001.jsonl"), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			core, logs := observer.New(zap.WarnLevel)
			l, err := Open(dir, zap.New(core))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			mustGet(t, l, a)
			if n := logs.Len(); n != tc.warns {
				t.Fatalf("%d warnings, want %d: %v", n, tc.warns, logs.All())
			}
			if _, size := l.stats(); size != int64(strings.Index(body, "\n")+1) {
				t.Fatalf("%d bytes of lines", size)
			}
			b := uuid.New() // written on, to a new file
			if err := l.Put(b, doc(b, "y")); err != nil {
				t.Fatal(err)
			}
			mustGet(t, l, b)
		})
	}
}
