package proofs

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/store"
)

// lockObserved is FileStorage that says when a lock of one name is asked
// for.
type lockObserved struct {
	*certmagic.FileStorage
	name   string
	asked  chan struct{}
	closed sync.Once
}

func (l *lockObserved) Lock(ctx context.Context, name string) error {
	if name == l.name {
		l.closed.Do(func() { close(l.asked) })
	}
	return l.FileStorage.Lock(ctx, name)
}

// TestClusterSweepTakesRecordStorageLock proves that with cluster the
// sweeper deletes a finished record only under the record's storage lock,
// as every record write is made: while another instance holds that lock
// (it has loaded the record and will write it back) the record stays, so
// that instance's write cannot bring a deleted record back; once the lock
// is free, a later pass deletes it. (deleteFinished took only the
// in-process lock.)
func TestClusterSweepTakesRecordStorageLock(t *testing.T) {
	ctx := context.Background()
	var c clock
	fs := &certmagic.FileStorage{Path: t.TempDir()}
	st := &lockObserved{FileStorage: fs, asked: make(chan struct{})}
	svc, err := New(st, Config{PublicURL: testPublicURL, Endpoint: testEndpoint, Now: c.now,
		ClusterLocks: true, RecordRetention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	id := res.ProofRecord.ID
	receiveAndAccept(t, svc, id)
	c.add(2 * time.Hour)

	// Another instance starts an update of the record: storage lock (not
	// through st, which watches this instance), then load.
	st.name = store.Prefix + "/locks/records/" + id
	if err := fs.Lock(ctx, st.name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fs.Unlock(context.Background(), st.name) }) // should the test stop before the other instance lets go
	other, err := svc.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}

	// This instance's sweeper pass, ended once it waits for that lock.
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		_, _ = svc.SweepTask().Run(pctx, c.now(), 100)
	}()
	select {
	case <-st.asked:
		cancel()
		<-ended
	case <-ended:
	}
	if _, err := svc.Load(ctx, id); errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("the sweeper deleted record %s while another instance held its storage lock", id)
	}

	// The other instance writes and lets go; the record is as it wrote it.
	other.Record.Metadata["email"] = "noted by the other instance"
	if err := svc.records.Put(ctx, id, svc.sealedDoc(other)); err != nil {
		t.Fatal(err)
	}
	if err := fs.Unlock(ctx, st.name); err != nil {
		t.Fatal(err)
	}

	// A later pass finds the lock free and deletes the record.
	got, err := svc.SweepTask().Run(ctx, c.now(), 100)
	if err != nil || got["records"] != 1 {
		t.Fatalf("the next pass: %v, %v; want the record deleted", got, err)
	}
	if _, err := svc.Load(ctx, id); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("record %s after the next pass: %v", id, err)
	}
}
