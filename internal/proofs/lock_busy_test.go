package proofs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/store"
)

// grantedAsTheWaitEnds is FileStorage whose record locks are granted just as
// the caller's bounded wait runs out: what certmagic's FileStorage does when
// its 1 s poll timer and the 1 s AdmitWait deadline fire together (its
// select takes the timer, createLockfile succeeds, and the deadline has
// passed by the time updateWithin looks), and what any storage whose Lock
// round trip straddles the deadline does.
type grantedAsTheWaitEnds struct{ *certmagic.FileStorage }

func (g grantedAsTheWaitEnds) Lock(ctx context.Context, name string) error {
	if err := g.FileStorage.Lock(context.WithoutCancel(ctx), name); err != nil {
		return err
	}
	if _, bounded := ctx.Deadline(); bounded && strings.HasPrefix(name, store.Prefix+"/locks/records/") {
		<-ctx.Done()
	}
	return nil
}

// TestBusyKeepsNoClusterLock: when updateWithin gives up (ErrBusy) on
// a storage lock that Lock nevertheless obtained, the lock must be released.
// Otherwise certmagic keeps the lock file fresh for as long as the process
// runs: every instance waits on that record for ever (the sweeper's pass
// that expires it never ends and holds the sweeper lock, an accept hangs,
// DIDComm answers 503 for good).
func TestBusyKeepsNoClusterLock(t *testing.T) {
	fs := &certmagic.FileStorage{Path: t.TempDir()}
	s, err := New(grantedAsTheWaitEnds{fs}, Config{PublicURL: testPublicURL, Endpoint: testEndpoint,
		ClusterLocks: true, InvitationTTL: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := s.Create(ctx, testOrg, peRequest())
	if err != nil {
		t.Fatal(err)
	}
	id := res.ProofRecord.ID

	// A problem report from the internet (bounded wait, AdmitWait).
	_, err = s.AbandonByProver(ctx, id, "", "declined")
	t.Logf("AbandonByProver: %v", err)

	// The sweeper's next pass (it expires or skips the record) must end,
	// also past the 10 s after which certmagic calls an abandoned lock stale.
	done := make(chan error, 1)
	go func() {
		_, err := s.SweepTask().Run(ctx, time.Now(), 100)
		done <- err
	}()
	select {
	case err := <-done:
		t.Logf("sweep: %v", err)
	case <-time.After(12 * time.Second):
		ok, _ := fs.TryLock(ctx, store.Prefix+"/locks/records/"+id)
		t.Fatalf("the sweeper's pass is still waiting for record %s after 12 s (its storage lock free: %v): "+
			"updateWithin returned %v holding the lock, and certmagic keeps it fresh", id, ok, ErrBusy)
	}
}
