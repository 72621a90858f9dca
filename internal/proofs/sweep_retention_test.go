package proofs

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/outbox"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// A done record whose ack is still queued (the prover briefly down) is
// kept past record_retention while the ack is retried: the ack is read
// from the record at delivery.
func TestSweepKeepsRecordWithQueuedAck(t *testing.T) {
	ctx, c, st := context.Background(), &clock{}, fileStorage(t)
	svc, _ := New(st, Config{PublicURL: testPublicURL, Endpoint: testEndpoint, Now: c.now, RecordRetention: time.Minute})
	w := wallet.NewT(t, wallet.Options{})
	acks := fastAcks(t, st) // not started: the next retry is "later"
	a := NewAgent(svc, AgentConfig{AllowPrivateEndpoints: true, Acks: acks})
	t.Cleanup(a.Close)
	id := presented(t, a, w)
	w.SetStatus(http.StatusServiceUnavailable) // prover briefly down
	rec, err := a.Accept(ctx, testOrg, id)
	if err != nil || rec.Metadata[MetadataAck].(map[string]any)["state"] != "queued" {
		t.Fatalf("accept %+v, %v", rec, err)
	}
	w.Next()
	c.add(2 * time.Minute) // before the ack's next attempt
	got, _ := svc.SweepTask().Run(ctx, c.now(), 100)
	if got["records"] != 0 {
		t.Errorf("swept %v: the record whose ack is queued was deleted", got)
	}
	w.SetStatus(http.StatusAccepted) // prover back
	results := make(chan outbox.Status, 1)
	acks.Handle(AckKind, a.deliverAck, func(_ outbox.Entry, s outbox.Status) { results <- s })
	acks.Start()
	acks.Notify()
	if s := <-results; s.State != outbox.StateSent {
		t.Fatalf("the queued ack after the sweep: state %s, error %q", s.State, s.LastError)
	}
}

// A finished record past record_retention is deleted even when its key no
// longer unseals (the key encryption key lost, or dropped from
// previous_key_encryption_key): the sweeper reads only its state and
// times.
func TestSweepDeletesRecordWhoseKeyDoesNotOpen(t *testing.T) {
	ctx, c, st := context.Background(), &clock{}, fileStorage(t)
	cfg := Config{PublicURL: testPublicURL, Endpoint: testEndpoint, Now: c.now, RecordRetention: time.Hour, Sealer: sealer(t, kek(t))}
	old, _ := New(st, cfg)
	req := indyRequest()
	req.ReuseConnection = false // per-record key, sealed in the record
	res, _ := old.Create(ctx, testOrg, req)
	if _, err := old.Abandon(ctx, res.ProofRecord.ID, "declined"); err != nil {
		t.Fatal(err)
	}
	old.Close()
	cfg.Sealer = sealer(t, kek(t)) // the old KEK is no longer configured
	svc, _ := New(st, cfg)
	defer svc.Close()
	c.add(2 * time.Hour)
	got, err := svc.SweepTask().Run(ctx, c.now(), 100)
	if _, lerr := svc.records.Load(ctx, res.ProofRecord.ID); lerr == nil {
		t.Fatalf("abandoned record 1h past record_retention still stored (sweep %v, %v)", got, err)
	}
}
