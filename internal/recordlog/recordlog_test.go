package recordlog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

func open(t *testing.T, dir string) *Log {
	t.Helper()
	l, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func doc(id uuid.UUID, state string) []byte {
	return []byte(fmt.Sprintf(`{"record":{"id":%q,"state":%q}}`, id, state))
}

func mustGet(t *testing.T, l *Log, id uuid.UUID) []byte {
	t.Helper()
	b, ok, err := l.Get(id)
	if err != nil || !ok {
		t.Fatalf("get %s: ok=%v err=%v", id, ok, err)
	}
	return b
}

func files(t *testing.T, dir string) []uint32 {
	t.Helper()
	seqs, err := segmentFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	return seqs
}

func TestPutGetDeleteAndReadBack(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir)
	a, b, c := uuid.New(), uuid.New(), uuid.New()
	for _, step := range []struct {
		id    uuid.UUID
		state string // "": delete
	}{{a, "request-sent"}, {b, "request-sent"}, {a, "presentation-received"}, {c, "request-sent"}, {b, ""}, {a, "done"}} {
		var err error
		if step.state == "" {
			err = l.Delete(step.id)
		} else {
			err = l.Put(step.id, doc(step.id, step.state))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	check := func(l *Log) {
		t.Helper()
		if got := mustGet(t, l, a); !bytes.Equal(got, doc(a, "done")) {
			t.Fatalf("a: %s", got)
		}
		if got := mustGet(t, l, c); !bytes.Equal(got, doc(c, "request-sent")) {
			t.Fatalf("c: %s", got)
		}
		if _, ok, _ := l.Get(b); ok || l.Has(b) {
			t.Fatal("b was deleted")
		}
		if l.Len() != 2 || len(l.IDs()) != 2 {
			t.Fatalf("len %d", l.Len())
		}
	}
	check(l)
	l.Close()
	check(open(t, dir))
	if n := len(files(t, dir)); n != 1 {
		t.Fatalf("%d files: reading back must not write", n)
	}
}

func TestRefusesMultiLineDocuments(t *testing.T) {
	l := open(t, t.TempDir())
	huge := append(append([]byte(`{"pad":"`), bytes.Repeat([]byte("x"), maxDoc)...), `"}`...)
	for _, d := range [][]byte{nil, []byte("{\n}"), huge} {
		if err := l.Put(uuid.New(), d); err == nil {
			t.Fatalf("%.40q must be refused", d)
		}
	}
}

// TestConcurrentWritersShareCommits: 64 writers at once all land, in far
// fewer commits than writes (every commit is one line batch: counted as
// the fdatasyncs would be, by the batches the committer wrote).
func TestConcurrentWritersShareCommits(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir)
	var batches int
	write := l.commit.Write
	l.commit.Write = func(ops []op) error { batches++; return write(ops) }
	ids := make([]uuid.UUID, 64)
	var wg sync.WaitGroup
	for i := range ids {
		ids[i] = uuid.New()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Put(ids[i], doc(ids[i], "request-sent")); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if batches >= 64 {
		t.Fatalf("%d commits for 64 concurrent writes", batches)
	}
	l.Close()
	l2 := open(t, dir)
	for _, id := range ids {
		mustGet(t, l2, id)
	}
}

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

func TestFailedWriteStartsAnotherFile(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir)
	a, b := uuid.New(), uuid.New()
	if err := l.Put(a, doc(a, "one")); err != nil {
		t.Fatal(err)
	}
	// The disk refuses writes to the current file (reads go on).
	ro, err := os.Open(l.cur.f.Name())
	if err != nil {
		t.Fatal(err)
	}
	l.cur.f.Close()
	l.cur.f = ro
	if err := l.Put(b, doc(b, "lost")); err == nil {
		t.Fatal("a write that failed must fail")
	}
	if l.Has(b) {
		t.Fatal("a failed write must not be held")
	}
	if err := l.Put(b, doc(b, "two")); err != nil {
		t.Fatalf("the next write must go to a new file: %v", err)
	}
	if n := len(files(t, dir)); n != 2 {
		t.Fatalf("%d files, want 2", n)
	}
	mustGet(t, l, a)
	if got := mustGet(t, l, b); !bytes.Equal(got, doc(b, "two")) {
		t.Fatalf("b: %s", got)
	}
}

func TestSecondOpenIsRefused(t *testing.T) {
	dir := t.TempDir()
	open(t, dir)
	if _, err := Open(dir, nil); !errors.Is(err, ErrInUse) {
		t.Fatalf("second open: %v, want ErrInUse", err)
	}
}

// TestCompaction: a finished file that is mostly superseded is copied
// forward and removed; what it held stays readable, now and after a
// restart, and its deletions are dropped once no older file remains.
func TestCompaction(t *testing.T) {
	defer func(n int64) { segmentMax = n }(segmentMax)
	segmentMax = 4096
	dir := t.TempDir()
	l := open(t, dir)
	keep, gone := uuid.New(), uuid.New()
	if err := l.Put(keep, doc(keep, "request-sent")); err != nil {
		t.Fatal(err)
	}
	if err := l.Put(gone, doc(gone, "request-sent")); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(gone); err != nil {
		t.Fatal(err)
	}
	churn := uuid.New()
	big := bytes.Repeat([]byte("x"), 300)
	for i := range 40 { // supersede its own lines, file after file
		if err := l.Put(churn, []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, big))); err != nil {
			t.Fatal(err)
		}
	}
	waitCompacted(t, l)
	if n := len(files(t, dir)); n > 3 {
		t.Fatalf("%d files after compaction", n)
	}
	check := func(l *Log) {
		t.Helper()
		if got := mustGet(t, l, keep); !bytes.Equal(got, doc(keep, "request-sent")) {
			t.Fatalf("keep: %s", got)
		}
		if got := mustGet(t, l, churn); !bytes.Contains(got, []byte(`"n":39`)) {
			t.Fatalf("churn: %.20s", got)
		}
		if l.Has(gone) {
			t.Fatal("a deleted record came back")
		}
	}
	check(l)
	l.Close()
	check(open(t, dir))
}

// TestSmallFilesAreFolded: each start leaves a small file; the next
// start's writes fold it into the new file.
func TestSmallFilesAreFolded(t *testing.T) {
	dir := t.TempDir()
	var ids []uuid.UUID
	for range 3 {
		l, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := uuid.New()
		ids = append(ids, id)
		if err := l.Put(id, doc(id, "request-sent")); err != nil {
			t.Fatal(err)
		}
		waitCompacted(t, l)
		l.Close()
	}
	if n := len(files(t, dir)); n != 1 {
		t.Fatalf("%d files, want the last start's only", n)
	}
	l := open(t, dir)
	for _, id := range ids {
		mustGet(t, l, id)
	}
}

// TestMoveOfAChangedRecordIsDropped: a compaction's copy of a record that
// was written again since it read it is not written.
func TestMoveOfAChangedRecordIsDropped(t *testing.T) {
	l := open(t, t.TempDir())
	id := uuid.New()
	if err := l.Put(id, doc(id, "one")); err != nil {
		t.Fatal(err)
	}
	l.mu.RLock()
	from, _ := l.index.get(id)
	l.mu.RUnlock()
	if err := l.Put(id, doc(id, "two")); err != nil {
		t.Fatal(err)
	}
	if err := l.commit.SubmitAll([]op{{id: id, doc: doc(id, "one"), move: true, from: from}}); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, l, id); !bytes.Equal(got, doc(id, "two")) {
		t.Fatalf("a stale copy won: %s", got)
	}
}

func TestDrain(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := uuid.New(), uuid.New()
	for _, id := range []uuid.UUID{a, b} {
		if err := l.Put(id, doc(id, "request-sent")); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	got := map[uuid.UUID][]byte{}
	n, err := Drain(dir, nil, func(id uuid.UUID, d []byte) error { got[id] = d; return nil })
	if err != nil || n != 2 || !bytes.Equal(got[a], doc(a, "request-sent")) || !bytes.Equal(got[b], doc(b, "request-sent")) {
		t.Fatalf("drain: %d %v %v", n, err, got)
	}
	if n := len(files(t, dir)); n != 0 {
		t.Fatalf("%d files left", n)
	}
	if n, err := Drain(filepath.Join(dir, "missing"), nil, nil); n != 0 || err != nil {
		t.Fatalf("a missing journal: %d %v", n, err)
	}
	// An empty journal is not locked: another process may hold it.
	holder := open(t, dir)
	if n, err := Drain(dir, nil, nil); n != 0 || err != nil {
		t.Fatalf("an empty journal: %d %v", n, err)
	}
	holder.Close()
}

func TestDrainFailureKeepsTheJournal(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.New()
	if err := l.Put(id, doc(id, "request-sent")); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := Drain(dir, nil, func(uuid.UUID, []byte) error { return errors.New("storage down") }); err == nil {
		t.Fatal("want the put's error")
	}
	mustGet(t, open(t, dir), id)
}

func TestDrainWaitsForAJournalHeldElsewhere(t *testing.T) {
	defer func(d time.Duration) { drainWait = d }(drainWait)
	drainWait = 300 * time.Millisecond
	dir := t.TempDir()
	holder := open(t, dir)
	id := uuid.New()
	if err := holder.Put(id, doc(id, "request-sent")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := Drain(dir, nil, func(uuid.UUID, []byte) error { return nil }); !errors.Is(err, ErrInUse) || time.Since(start) < drainWait {
		t.Fatalf("drain: %v after %v, want ErrInUse after waiting", err, time.Since(start))
	}
	// Released while Drain waits: it goes ahead.
	go func() { time.Sleep(100 * time.Millisecond); holder.Close() }()
	if n, err := Drain(dir, nil, func(uuid.UUID, []byte) error { return nil }); n != 1 || err != nil {
		t.Fatalf("drain after release: %d %v", n, err)
	}
}

func TestDrainRefusesAJournalThisProcessHolds(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer Release(l)
	if err := l.Put(uuid.New(), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := Drain(dir, nil, func(uuid.UUID, []byte) error { return nil }); !errors.Is(err, ErrInUse) {
		t.Fatalf("drain: %v, want ErrInUse", err)
	}
	again, err := Acquire(dir, nil)
	if err != nil || again != l {
		t.Fatalf("a second Acquire must share the Log: %v", err)
	}
	Release(again)
}

func waitCompacted(t *testing.T, l *Log) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l.mu.RLock()
		busy := l.busy
		l.mu.RUnlock()
		if !busy {
			l.compacting.Wait()
			l.mu.RLock()
			busy = l.busy
			l.mu.RUnlock()
			if !busy {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("compaction did not finish")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestAppendUUID(t *testing.T) {
	for range 100 {
		id := uuid.New()
		if got := string(appendUUID(nil, id)); got != id.String() {
			t.Fatalf("%s, want %s", got, id)
		}
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

func TestSnapshotBesideTheWriter(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir)
	a, b := uuid.New(), uuid.New()
	for _, id := range []uuid.UUID{a, b} {
		if err := l.Put(id, doc(id, "request-sent")); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Delete(b); err != nil {
		t.Fatal(err)
	}
	got, err := Snapshot(dir)
	if err != nil || len(got) != 1 || !bytes.Equal(got[a], doc(a, "request-sent")) {
		t.Fatalf("snapshot %v %v", got, err)
	}
	// The writer keeps its journal.
	if err := l.Put(b, doc(b, "again")); err != nil {
		t.Fatal(err)
	}
	if got, err := Snapshot(filepath.Join(dir, "missing")); err != nil || len(got) != 0 {
		t.Fatalf("missing: %v %v", got, err)
	}
}

func TestStats(t *testing.T) {
	l := open(t, t.TempDir())
	a := uuid.New()
	if err := l.Put(a, doc(a, "x")); err != nil {
		t.Fatal(err)
	}
	if err := l.Put(a, doc(a, "y")); err != nil {
		t.Fatal(err)
	}
	records, size := l.stats()
	fi, err := os.Stat(l.cur.f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if records != 1 || size != fi.Size() {
		t.Fatalf("stats %d records, %d bytes; file %d bytes", records, size, fi.Size())
	}
}

// TestDeletedRecordsLeaveTheDisk: with nothing more written, a deleted
// record's bytes are gone from every file within about twice scrubAfter;
// what was not deleted stays readable.
func TestDeletedRecordsLeaveTheDisk(t *testing.T) {
	defer func(d time.Duration) { scrubAfter = d }(scrubAfter)
	scrubAfter = 80 * time.Millisecond
	dir := t.TempDir()
	l := open(t, dir)
	keep, gone := uuid.New(), uuid.New()
	secret := []byte(`{"presentation":"personal data of ` + gone.String() + `"}`)
	if err := l.Put(keep, doc(keep, "done")); err != nil {
		t.Fatal(err)
	}
	if err := l.Put(gone, secret); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(gone); err != nil {
		t.Fatal(err)
	}
	onDisk := func() bool {
		for _, seq := range files(t, dir) {
			b, err := os.ReadFile(l.path(seq))
			if err == nil && bytes.Contains(b, secret) {
				return true
			}
		}
		return false
	}
	if !onDisk() {
		t.Fatal("the test needs the deleted bytes on disk at first")
	}
	deadline := time.Now().Add(10 * time.Second)
	for onDisk() {
		if time.Now().After(deadline) {
			t.Fatal("a deleted record's bytes are still on disk")
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitCompacted(t, l)
	if got := mustGet(t, l, keep); !bytes.Equal(got, doc(keep, "done")) {
		t.Fatalf("keep: %s", got)
	}
	l.Close()
	again := open(t, dir)
	mustGet(t, again, keep)
	if again.Has(gone) {
		t.Fatal("the deleted record came back")
	}
}

// TestEveryVersionOfADeletedRecordLeaves: an earlier version of a deleted
// record, in a large file that is otherwise current (so neither small nor
// mostly superseded), leaves the disk too.
func TestEveryVersionOfADeletedRecordLeaves(t *testing.T) {
	defer func(d time.Duration, n int64) { scrubAfter, segmentMax = d, n }(scrubAfter, segmentMax)
	scrubAfter, segmentMax = 200*time.Millisecond, 1<<20
	dir := t.TempDir()
	first, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kept []uuid.UUID
	pad := bytes.Repeat([]byte("x"), 4000)
	for range 30 {
		id := uuid.New()
		kept = append(kept, id)
		if err := first.Put(id, []byte(`{"pad":"`+string(pad)+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	gone := uuid.New()
	v1 := []byte(`{"presentation":"first version, personal"}`)
	v2 := []byte(`{"presentation":"second version, personal"}`)
	if err := first.Put(gone, v1); err != nil {
		t.Fatal(err)
	}
	first.Close()

	l := open(t, dir)
	if err := l.Put(gone, v2); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(gone); err != nil {
		t.Fatal(err)
	}
	onDisk := func(b []byte) bool {
		for _, seq := range files(t, dir) {
			if f, err := os.ReadFile(l.path(seq)); err == nil && bytes.Contains(f, b) {
				return true
			}
		}
		return false
	}
	if !onDisk(v1) || !onDisk(v2) {
		t.Fatal("the test needs both versions on disk at first")
	}
	deadline := time.Now().Add(10 * time.Second)
	for onDisk(v1) || onDisk(v2) {
		if time.Now().After(deadline) {
			t.Fatalf("still on disk: first version %v, second %v", onDisk(v1), onDisk(v2))
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitCompacted(t, l)
	for _, id := range kept {
		mustGet(t, l, id)
	}
}
