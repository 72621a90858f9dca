package proofs

import (
	"context"
	"testing"
	"time"
)

// A done record past record_retention whose in-process lock is held (an
// update with no deadline, waiting on a cluster lock never released) does
// not hold the sweeper's task past its deadline, nor the storage lock
// every instance's passes share: a later pass deletes it. (deleteFinished
// waited for the lock for good, whatever its context said.)
func TestDeleteFinishedHonoursTaskTimeout(t *testing.T) {
	ctx := context.Background()
	var c clock
	svc, err := New(fileStorage(t), Config{
		PublicURL: testPublicURL, Endpoint: testEndpoint, Now: c.now,
		RecordRetention: time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	done, _ := svc.Create(ctx, testOrg, indyRequest())
	if _, err := svc.MarkPresentationReceived(ctx, done.ProofRecord.ID, Presentation{Message: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Accept(ctx, testOrg, done.ProofRecord.ID); err != nil {
		t.Fatal(err)
	}
	unlock := recordLocks.lock(done.ProofRecord.ID) // held by a stuck update
	defer unlock()
	c.add(2 * time.Hour)

	tctx, cancel := context.WithTimeout(ctx, time.Second) // the sweeper's TaskTimeout
	defer cancel()
	ended := make(chan struct{})
	go func() {
		_, _ = svc.SweepTask().Run(tctx, c.now(), 100)
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the records task is still waiting for a record lock 4 s after its deadline: deleteFinished ignores ctx")
	}
}
