package proofs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// TestKeyedMutexLockCtx proves that lockCtx takes a free key, waits for a
// held one as long as its context lives, gives up with the context's error
// when it ends, and forgets the keys nobody holds or awaits.
func TestKeyedMutexLockCtx(t *testing.T) {
	var k keyedMutex
	unlock, err := k.lockCtx(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() {
		u, err := k.lockCtx(ctx, "a")
		if err == nil {
			u()
		}
		gaveUp <- err
	}()
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("a wait whose context ended: %v", err)
	}
	got := make(chan func())
	go func() {
		u, err := k.lockCtx(context.Background(), "a")
		if err != nil {
			t.Error(err)
		}
		got <- u
	}()
	unlock()
	(<-got)()
	if len(k.m) != 0 {
		t.Fatalf("%d keys kept with nobody holding them", len(k.m))
	}
}

// stuckHolder holds the in-process lock of record id until the test ends:
// an update waiting on a storage lock, a Put that hangs.
func stuckHolder(t *testing.T, id string) {
	unlock := recordLocks.lock(id)
	t.Cleanup(unlock)
}

// TestSetMetadataHonoursContext proves that SetMetadata (ackResult and
// reportProblem bound theirs to 10 s, so that Close never waits behind a
// lock that is not released) gives up waiting for the record's lock when
// its context ends, as backend.ErrUnavailable. (update waited for good.)
func TestSetMetadataHonoursContext(t *testing.T) {
	a := newTestAgent(t)
	id := presented(t, a, wallet.NewT(t, wallet.Options{}))
	stuckHolder(t, id)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Service().SetMetadata(ctx, id, "email", "x") }()
	select {
	case err := <-done:
		if !errors.Is(err, backend.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("SetMetadata: %v; want backend.ErrUnavailable (deadline exceeded)", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SetMetadata still waits for the record lock 10 s after its context ended")
	}
}

// TestAcceptHonoursContext proves that an accept whose caller went away
// stops waiting for the record's lock, with the cancellation (the API's
// 499, not a 503 logged as the verifier's failure), and changes nothing.
func TestAcceptHonoursContext(t *testing.T) {
	a := newTestAgent(t)
	id := presented(t, a, wallet.NewT(t, wallet.Options{}))
	stuckHolder(t, id)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := a.Accept(ctx, testOrg, id); done <- err }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || errors.Is(err, backend.ErrUnavailable) {
			t.Fatalf("Accept: %v; want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Accept still waits for the record lock 10 s after its caller went away")
	}
	if rec, err := a.Service().LoadRecord(context.Background(), id); err != nil || rec.State != backend.StatePresentationReceived {
		t.Fatalf("the record after the abandoned accept: %s, %v", rec.State, err)
	}
}

// TestDiscardHonoursContext proves that Discard, too, gives up waiting for
// the record's lock when its context ends, and deletes nothing.
func TestDiscardHonoursContext(t *testing.T) {
	s := newTestService(t, fileStorage(t))
	res, err := s.Create(context.Background(), testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	stuckHolder(t, res.ProofRecord.ID)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Discard(ctx, testOrg, res.ProofRecord.ID) }()
	select {
	case err := <-done:
		if !errors.Is(err, backend.ErrUnavailable) {
			t.Fatalf("Discard: %v; want backend.ErrUnavailable", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Discard still waits for the record lock 10 s after its context ended")
	}
	if _, err := s.Load(context.Background(), res.ProofRecord.ID); err != nil {
		t.Fatalf("the record after the abandoned discard: %v", err)
	}
}
