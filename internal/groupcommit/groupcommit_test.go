package groupcommit

import (
	"errors"
	"sync"
	"testing"
)

func TestBatchesShareWrites(t *testing.T) {
	gate := make(chan struct{})
	entered := make(chan struct{}, 1)
	var (
		mu      sync.Mutex
		batches [][]int
	)
	c := &Committer[int]{Write: func(b []int) error {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-gate
		mu.Lock()
		batches = append(batches, append([]int(nil), b...))
		mu.Unlock()
		if len(b) > 0 && b[0] < 0 {
			return errors.New("refused")
		}
		return nil
	}}
	var wg sync.WaitGroup
	errs := make([]error, 9)
	wg.Add(1)
	go func() { defer wg.Done(); errs[0] = c.Submit(0) }()
	<-entered // the first batch is being written; the next ones gather
	for i := 1; i < 9; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = c.Submit(i) }()
	}
	for { // wait until all eight are queued behind the first write
		if c.Pending() == 8 {
			break
		}
	}
	close(gate)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("submit %d: %v", i, err)
		}
	}
	if len(batches) != 2 || len(batches[0]) != 1 || len(batches[1]) != 8 {
		t.Fatalf("batches %v, want [0] then the eight that waited", batches)
	}
}

func TestFailureReachesEveryCallerOfItsBatch(t *testing.T) {
	c := &Committer[int]{Max: 1, Write: func(b []int) error {
		if b[0] < 0 {
			return errors.New("refused")
		}
		return nil
	}}
	if err := c.Submit(-1); err == nil {
		t.Fatal("the failed write's error must reach its caller")
	}
	if err := c.Submit(1); err != nil {
		t.Fatalf("a later batch must not inherit the failure: %v", err)
	}
}

func TestSubmitAllWaitsForEveryItem(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []int
	)
	c := &Committer[int]{Max: 3, Write: func(b []int) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, b...)
		if b[0] == 3 {
			return errors.New("refused")
		}
		return nil
	}}
	err := c.SubmitAll([]int{0, 1, 2, 3, 4, 5, 6})
	if err == nil {
		t.Fatal("the failed batch's error must come back")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 7 {
		t.Fatalf("written %v: every batch must be written before SubmitAll returns", seen)
	}
	if c.SubmitAll(nil) != nil {
		t.Fatal("nothing to write is no error")
	}
}

// TestStartWritesWhileTheCallerWorks: Start returns before the batch is
// written, the write goes on meanwhile, and Wait returns its outcome.
func TestStartWritesWhileTheCallerWorks(t *testing.T) {
	release := make(chan struct{})
	writing := make(chan []int, 1)
	c := &Committer[int]{Write: func(b []int) error {
		writing <- append([]int(nil), b...)
		<-release
		if b[0] < 0 {
			return errors.New("refused")
		}
		return nil
	}}
	ticket := c.Start(7)
	// The caller is not waiting, yet the batch is being written.
	if got := <-writing; len(got) != 1 || got[0] != 7 {
		t.Fatalf("batch = %v, want [7]", got)
	}
	close(release)
	if err := ticket.Wait(); err != nil {
		t.Fatalf("Wait = %v", err)
	}
	failed := c.Start(-1)
	<-writing
	if err := failed.Wait(); err == nil {
		t.Fatal("the failed write's error must reach the ticket")
	}
}
