package sweeper

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/store"
)

func TestPassTakesTheLock(t *testing.T) {
	st := &certmagic.FileStorage{Path: t.TempDir()}
	runs := 0
	s := New(st, []Task{{Name: "t", Run: func(context.Context, time.Time, int) (map[string]int, error) {
		runs++
		return map[string]int{"things": 2}, nil
	}}}, Options{})
	got, err := s.Pass(context.Background())
	if err != nil || got["things"] != 2 || runs != 1 {
		t.Fatalf("Pass = %v, %v", got, err)
	}
	// Another instance's pass holds the lock: this one does nothing.
	if err := st.Lock(context.Background(), LockName); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pass(context.Background()); !errors.Is(err, ErrBusy) || runs != 1 {
		t.Fatalf("Pass under a held lock = %v (runs %d)", err, runs)
	}
	_ = st.Unlock(context.Background(), LockName)
}

func TestCursorWalksAndWraps(t *testing.T) {
	st := store.New(&certmagic.FileStorage{Path: t.TempDir()}, "x")
	for i := range 5 {
		if err := st.Put(context.Background(), fmt.Sprintf("d%d", i), i); err != nil {
			t.Fatal(err)
		}
	}
	var c Cursor
	var seen []string
	for range 3 {
		names, err := c.Next(context.Background(), st, 2)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, names...)
	}
	if fmt.Sprint(seen) != "[d0 d1 d2 d3 d4]" {
		t.Fatalf("walked %v", seen)
	}
	if names, _ := c.Next(context.Background(), st, 2); fmt.Sprint(names) != "[d0 d1]" {
		t.Fatalf("after wrapping: %v", names)
	}
}

// A task stuck on one document (a record lock never released) is ended at
// TaskTimeout: the other tasks run, and the pass gives up its lock.
func TestStuckTaskEndsAtItsTimeout(t *testing.T) {
	st := &certmagic.FileStorage{Path: t.TempDir()}
	after := 0
	s := New(st, []Task{
		{Name: "stuck", Run: func(ctx context.Context, _ time.Time, _ int) (map[string]int, error) {
			<-ctx.Done() // waits as a lock that never comes would
			return nil, ctx.Err()
		}},
		{Name: "after", Run: func(context.Context, time.Time, int) (map[string]int, error) {
			after++
			return map[string]int{"things": 1}, nil
		}},
	}, Options{TaskTimeout: 50 * time.Millisecond})
	got, err := s.Pass(context.Background())
	if !errors.Is(err, context.DeadlineExceeded) || after != 1 || got["things"] != 1 {
		t.Fatalf("Pass = %v, %v (the task after ran %d times); want the stuck task's deadline, and the next task run", got, err, after)
	}
	if ok, _ := st.TryLock(context.Background(), LockName); !ok {
		t.Fatal("the pass kept its lock")
	}
}
