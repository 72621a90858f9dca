package ownerlog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
)

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
		queued = l.commit.Pending()
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
