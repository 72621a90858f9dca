package recordlog

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
)

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
