package proofs

import (
	"context"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
)

// Two local backends on one storage (two sites) each sweep every record
// on it. Site B's sweeper must not expire site A's invitation by B's
// shorter invitation_ttl, nor delete A's finished record by B's shorter
// record_retention: A's records follow A's settings while A runs. Once no
// backend of the process made them (site A removed by a reload), the
// sites left sweep them.
func TestSweeperLeavesAnotherSitesRecords(t *testing.T) {
	ctx := context.Background()
	storage := fileStorage(t)
	later := time.Now().Add(2 * time.Hour) // past B's ttl, within A's
	siteA, siteB := twoSites(t, storage,
		Config{InvitationTTL: 30 * 24 * time.Hour, RecordRetention: 365 * 24 * time.Hour},
		Config{InvitationTTL: time.Minute, RecordRetention: time.Hour, Now: func() time.Time { return later }})
	waiting, err := siteA.Service().Create(ctx, backend.Org{ID: orgOfSiteA}, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := siteB.Service().SweepTask().Run(ctx, later, 100); err != nil {
		t.Fatal(err)
	}
	if rec, err := siteA.Service().LoadRecord(ctx, waiting.ProofRecord.ID); err != nil || rec.State != backend.StateRequestSent {
		t.Fatalf("site A's waiting record after site B's sweep: %s, %v", rec.State, err)
	}

	siteA.Close()
	siteA.Service().Close() // a reload removed site A
	if _, err := siteB.Service().SweepTask().Run(ctx, later, 100); err != nil {
		t.Fatal(err)
	}
	if rec, err := siteB.Service().LoadRecord(ctx, waiting.ProofRecord.ID); err != nil || rec.State != backend.StateAbandoned {
		t.Fatalf("site A's record once no backend of the process made it: %s, %v; want it expired by site B", rec.State, err)
	}
}
