package proofs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/outbox"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// fastAcks is an ack deliverer on storage that retries every 20ms.
func fastAcks(t *testing.T, storage certmagic.Storage) *outbox.Deliverer {
	d := outbox.NewDeliverer(outbox.New(storage, AckNamespace, nil), outbox.Options{
		DefaultKind: AckKind, MaxAttempts: 50, Logger: zaptest.NewLogger(t),
		Backoff: func(int) time.Duration { return 20 * time.Millisecond },
	})
	t.Cleanup(d.Stop)
	return d
}

// presented makes a record of testOrg in presentation-received, answered
// by w.
func presented(t *testing.T, a *Agent, w *wallet.T) string {
	t.Helper()
	return presentedFor(t, a, w, testOrg)
}

func presentedFor(t *testing.T, a *Agent, w *wallet.T, org backend.Org) string {
	t.Helper()
	req := indyRequest()
	req.AutoAcceptProof = AutoAcceptNever
	res, err := a.Service().Create(context.Background(), org, req)
	if err != nil {
		t.Fatal(err)
	}
	inv := w.ReadInvitation(res.InvitationURL)
	if _, err := a.Receive(context.Background(), w.Present(inv, wallet.SampleIndyProof(), false)); err != nil {
		t.Fatal(err)
	}
	return res.ProofRecord.ID
}

func waitAckMetadata(t *testing.T, s *Service, id string, sent bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rec, err := s.LoadRecord(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		ack, _ := rec.Metadata[MetadataAck].(map[string]any)
		if ack["sent"] == sent {
			return ack
		}
		if time.Now().After(deadline) {
			t.Fatalf("metadata.ack %v, want sent=%v", ack, sent)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An ack whose first attempt fails is kept in the outbox and delivered by
// the next process on the same storage; metadata.ack follows.
func TestAckSurvivesRestart(t *testing.T) {
	st := fileStorage(t)
	svc := newTestService(t, st)
	w := wallet.NewT(t, wallet.Options{})
	first := NewAgent(svc, AgentConfig{AllowPrivateEndpoints: true, Acks: fastAcks(t, st)}) // never started: it "dies"
	id := presented(t, first, w)
	w.SetStatus(http.StatusServiceUnavailable)
	rec, err := first.Accept(context.Background(), testOrg, id)
	if err != nil {
		t.Fatal(err)
	}
	ack := rec.Metadata[MetadataAck].(map[string]any)
	if rec.State != backend.StateDone || ack["sent"] != false || ack["state"] != "queued" || ack["error"] != "http-503" || ack["attempts"] != float64(1) {
		t.Fatalf("record %+v", rec)
	}
	w.Next() // the refused attempt
	first.Close()

	w.SetStatus(http.StatusAccepted)
	acks := fastAcks(t, st)
	second := NewAgent(newTestService(t, st), AgentConfig{AllowPrivateEndpoints: true, Acks: acks})
	t.Cleanup(second.Close)
	acks.Start()
	if got := w.Next(); got.Type() != TypeAckV2 || got.ThreadID() != rec.ThreadID {
		t.Fatalf("got %s", got.Raw)
	}
	ack = waitAckMetadata(t, svc, id, true)
	if ack["state"] != "sent" || ack["attempts"] != float64(2) || ack["error"] != nil || ack["endpoint"] != w.URL() {
		t.Fatalf("metadata.ack %v", ack)
	}
}

// ackWatched is an agent with a record in presentation-received (id,
// answered by w) whose ack outcomes go to results instead of the record;
// its deliverer is not started.
func ackWatched(t *testing.T) (a *Agent, acks *outbox.Deliverer, w *wallet.T, id string, results chan outbox.Status) {
	st := fileStorage(t)
	acks = fastAcks(t, st)
	a = NewAgent(newTestService(t, st), AgentConfig{AllowPrivateEndpoints: true, Acks: acks})
	t.Cleanup(a.Close)
	w = wallet.NewT(t, wallet.Options{})
	id = presented(t, a, w)
	results = make(chan outbox.Status, 10)
	acks.Handle(AckKind, a.deliverAck, func(_ outbox.Entry, s outbox.Status) { results <- s })
	return a, acks, w, id, results
}

// The ack's message is written before the record: if the process died
// between the two writes, the message finds its record not done and sends
// nothing; an accept that then succeeds sends the ack once.
func TestAckMessageBeforeRecord(t *testing.T) {
	a, acks, w, id, results := ackWatched(t)
	// The crash: the message is there, the record never moved.
	if err := acks.Outbox().Enqueue(context.Background(), ackMessageID(id), AckKind, ackMessage{RecordID: id}); err != nil {
		t.Fatal(err)
	}
	acks.Start()
	acks.Notify()
	select {
	case s := <-results:
		if s.State != outbox.StateQueued || s.LastError != "record-not-done" {
			t.Fatalf("status %+v", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no attempt")
	}
	w.None()
	acks.Handle(AckKind, a.deliverAck, a.ackResult)
	rec, err := a.Accept(context.Background(), testOrg, id)
	if err != nil || rec.State != backend.StateDone {
		t.Fatalf("accept %+v, %v", rec, err)
	}
	// The first attempt is the accept's own, or (if a worker held the
	// message at that moment) the worker's next.
	if got := w.Next(); got.Type() != TypeAckV2 {
		t.Fatalf("got %s", got.Raw)
	}
	waitAckMetadata(t, a.Service(), id, true)
	time.Sleep(200 * time.Millisecond) // room for a wrong second delivery
	w.None()
}

// The ack's message is held while its accept is in flight: another
// accept's release, or a scan, does not hand it to a worker before its
// record is stored (which used to spend an attempt on "record-not-done"
// and put the ack off by a backoff); the accept's release then sends it
// once.
func TestAckHeldUntilItsRecordIsStored(t *testing.T) {
	a, acks, w, id, results := ackWatched(t)
	acks.Start()
	stage := func(ctx context.Context, d *Doc) (backend.Staged, error) {
		staged, err := a.stageAck(ctx, d)
		acks.Notify()
		acks.ScanNow()
		select {
		case s := <-results:
			t.Errorf("the ack was attempted before its record was stored: %+v", s)
		case <-time.After(300 * time.Millisecond):
		}
		return staged, err
	}
	if _, err := a.svc.accept(context.Background(), testOrg, id, stage); err != nil {
		t.Fatal(err)
	}
	a.releaseAck(id)
	select {
	case s := <-results:
		if s.State != outbox.StateSent || s.Attempts != 1 {
			t.Fatalf("status %+v, want sent at the first attempt", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the released ack was not attempted")
	}
	if got := w.Next(); got.Type() != TypeAckV2 {
		t.Fatalf("got %s", got.Raw)
	}
}

// Two local backends on one storage share its ack deliverer, whose newest
// registration delivers. An ack staged by the backend that keeps the
// outbound address guard is sent guarded by the other too (the guard
// refuses the wallet's loopback endpoint); the other's own acks go out.
// The newest backend's client used to send them all: the guard bypassed.
func TestSharedAckDelivererKeepsEachBackendsGuard(t *testing.T) {
	st := fileStorage(t)
	acks := fastAcks(t, st)
	guarded := NewAgent(newTestService(t, st), AgentConfig{AllowPrivateEndpoints: false, Acks: acks})
	t.Cleanup(guarded.Close)
	open := NewAgent(newTestService(t, st), AgentConfig{AllowPrivateEndpoints: true, Acks: acks})
	t.Cleanup(open.Close)
	acks.Start()
	w := wallet.NewT(t, wallet.Options{}) // its endpoint is on 127.0.0.1

	id := presented(t, guarded, w)
	rec, err := guarded.Accept(context.Background(), testOrg, id)
	if err != nil {
		t.Fatal(err)
	}
	if ack, _ := rec.Metadata[MetadataAck].(map[string]any); ack["sent"] == true || ack["error"] != "endpoint-not-public" {
		t.Fatalf("the guarded backend's ack: %v, want refused as endpoint-not-public", ack)
	}
	id = presented(t, open, w)
	rec, err = open.Accept(context.Background(), testOrg, id)
	if err != nil {
		t.Fatal(err)
	}
	if ack, _ := rec.Metadata[MetadataAck].(map[string]any); ack["sent"] != true {
		t.Fatalf("the open backend's ack: %v, want sent", ack)
	}
}

// Two local backends on one storage (two sites, each serving its own
// orgs), each with its own key_encryption_key, share the ack deliverer;
// the newest registration cannot open the other's record keys, and passes
// its acks on (outbox.ErrNotMine) instead of failing them. Neither logs
// the other's outcomes as a failure.
func TestSharedAckDelivererAcrossKeyEncryptionKeys(t *testing.T) {
	st := fileStorage(t)
	acks := fastAcks(t, st)
	core, logs := observer.New(zap.WarnLevel)
	older := NewAgent(sealedService(t, st, sealer(t, kek(t))), AgentConfig{AllowPrivateEndpoints: true, Acks: acks, Logger: zap.New(core)})
	t.Cleanup(older.Close)
	newer := NewAgent(sealedService(t, st, sealer(t, kek(t))), AgentConfig{AllowPrivateEndpoints: true, Acks: acks, Logger: zap.New(core)})
	t.Cleanup(newer.Close)
	acks.Start()
	w := wallet.NewT(t, wallet.Options{})

	for _, tc := range []struct {
		name string
		a    *Agent
		org  backend.Org
	}{
		{"older", older, backend.Org{ID: "0b5c1f3e-6a9d-4e27-8c41-2d7f9a3b5e60"}},
		{"newer", newer, backend.Org{ID: "9e4a2c7b-3d1f-4b85-a6e0-7c2d9f1b4a38"}},
	} {
		id := presentedFor(t, tc.a, w, tc.org)
		rec, err := tc.a.Accept(context.Background(), tc.org, id)
		if err != nil {
			t.Fatal(err)
		}
		if ack, _ := rec.Metadata[MetadataAck].(map[string]any); ack["sent"] != true {
			t.Errorf("the %s backend's ack: %v, want sent", tc.name, ack)
		}
	}
	for _, e := range logs.All() {
		t.Errorf("logged: %s %v", e.Message, e.ContextMap())
	}
}

// Provers choose where their acks go, so a prover can make its endpoint
// hang for the whole send timeout, attempt after attempt. Acks at such
// endpoints must not hold every worker: an ack to a prover that answers
// is still delivered while several hang.
func TestHangingProversDoNotHoldEveryAckWorker(t *testing.T) {
	acks := NewAckDeliverer(fileStorage(t), zaptest.NewLogger(t), nil)
	t.Cleanup(acks.Stop)
	const hanging = 6
	inFlight := make(chan string, hanging)
	delivered := make(chan string, 1)
	hangUp := make(chan struct{})
	t.Cleanup(func() { close(hangUp) }) // before acks.Stop, which waits for them
	acks.Handle(AckKind, func(ctx context.Context, e outbox.Entry) error {
		if e.ID == "ack-answering" {
			delivered <- e.ID
			return nil
		}
		inFlight <- e.ID
		<-hangUp // the prover's endpoint does not answer while the test runs
		return errors.New("timeout")
	}, nil)
	for i := range hanging {
		if err := acks.Outbox().Enqueue(context.Background(), fmt.Sprintf("ack-hanging-%d", i), AckKind, ackMessage{RecordID: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	acks.Start()
	acks.Notify()
	for range hanging {
		select {
		case <-inFlight:
		case <-time.After(10 * time.Second):
			t.Fatalf("fewer than %d acks attempted at once", hanging)
		}
	}
	if err := acks.Outbox().Enqueue(context.Background(), "ack-answering", AckKind, ackMessage{RecordID: "r"}); err != nil {
		t.Fatal(err)
	}
	acks.Notify("ack-answering")
	select {
	case <-delivered:
	case <-time.After(10 * time.Second):
		t.Fatal("the ack to an answering prover waited behind hanging ones")
	}
}
