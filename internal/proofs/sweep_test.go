package proofs

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// clock is a settable clock for the Service.
type clock struct{ skew atomic.Int64 }

func (c *clock) now() time.Time      { return time.Now().Add(time.Duration(c.skew.Load())) }
func (c *clock) add(d time.Duration) { c.skew.Add(int64(d)) }

// recordingSink keeps every change staged and committed.
type recordingSink struct {
	mu      sync.Mutex
	changes []backend.StateChange
}

func (r *recordingSink) Stage(_ context.Context, c backend.StateChange) (backend.Staged, error) {
	return &recordingStaged{r, c}, nil
}

type recordingStaged struct {
	r *recordingSink
	c backend.StateChange
}

func (s *recordingStaged) Commit() {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.r.changes = append(s.r.changes, s.c)
}

func (s *recordingStaged) Abort(context.Context) {}

func (r *recordingSink) states() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.changes {
		out = append(out, c.PreviousState+">"+c.Record.State)
	}
	return out
}

func TestSweepRetentionAndExpiry(t *testing.T) {
	ctx := context.Background()
	var c clock
	svc, err := New(fileStorage(t), Config{
		PublicURL: testPublicURL, Endpoint: testEndpoint, Now: c.now,
		RecordRetention: time.Hour, InvitationTTL: 24 * time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	sink := &recordingSink{}
	svc.SetChangeSink(sink)
	waiting, _ := svc.Create(ctx, testOrg, indyRequest())
	done, _ := svc.Create(ctx, testOrg, indyRequest())
	if _, err := svc.MarkPresentationReceived(ctx, done.ProofRecord.ID, Presentation{Message: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Accept(ctx, testOrg, done.ProofRecord.ID); err != nil {
		t.Fatal(err)
	}
	task := svc.SweepTask()

	// Within both limits: nothing happens.
	c.add(30 * time.Minute)
	if got, err := task.Run(ctx, c.now(), 100); err != nil || got["records"] != 0 || got["invitations_expired"] != 0 {
		t.Fatalf("early pass: %v, %v", got, err)
	}
	// Past the retention: the done record goes, the waiting one stays.
	c.add(time.Hour)
	if got, err := task.Run(ctx, c.now(), 100); err != nil || got["records"] != 1 || got["invitations_expired"] != 0 {
		t.Fatalf("retention pass: %v, %v", got, err)
	}
	if _, err := svc.Load(ctx, done.ProofRecord.ID); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("done record after its retention: %v", err)
	}
	if rec, _ := svc.LoadRecord(ctx, waiting.ProofRecord.ID); rec.State != backend.StateRequestSent {
		t.Fatalf("waiting record %+v", rec)
	}
	// Past the invitation TTL: abandoned (and notified), then, past the
	// retention, deleted.
	c.add(24 * time.Hour)
	if got, err := task.Run(ctx, c.now(), 100); err != nil || got["invitations_expired"] != 1 {
		t.Fatalf("expiry pass: %v, %v", got, err)
	}
	rec, _ := svc.LoadRecord(ctx, waiting.ProofRecord.ID)
	if rec.State != backend.StateAbandoned || rec.ErrorMessage != ErrorInvitationExpired {
		t.Fatalf("expired record %+v", rec)
	}
	states := sink.states()
	if last := states[len(states)-1]; last != "request-sent>abandoned" {
		t.Fatalf("changes %v", states)
	}
	c.add(2 * time.Hour)
	if got, _ := task.Run(ctx, c.now(), 100); got["records"] != 1 {
		t.Fatalf("final pass: %v", got)
	}
}

// A pass looks at no more than its budget, and the next continues.
func TestSweepBudget(t *testing.T) {
	ctx := context.Background()
	var c clock
	svc, _ := New(fileStorage(t), Config{PublicURL: testPublicURL, Endpoint: testEndpoint, Now: c.now, InvitationTTL: time.Hour})
	for range 5 {
		if _, err := svc.Create(ctx, testOrg, indyRequest()); err != nil {
			t.Fatal(err)
		}
	}
	c.add(2 * time.Hour)
	task := svc.SweepTask()
	total := 0
	for pass := range 3 {
		got, err := task.Run(ctx, c.now(), 2)
		if err != nil || got["invitations_expired"] > 2 {
			t.Fatalf("pass %d: %v, %v", pass, got, err)
		}
		total += got["invitations_expired"]
	}
	if total != 5 {
		t.Fatalf("expired %d of 5 in three passes of two", total)
	}
}

// A presentation after invitation_ttl is refused with a problem report;
// the record is abandoned.
func TestPresentationAfterTTL(t *testing.T) {
	ctx := context.Background()
	var c clock
	svc, _ := New(fileStorage(t), Config{PublicURL: testPublicURL, Endpoint: testEndpoint, Now: c.now, InvitationTTL: time.Hour})
	a := NewAgent(svc, AgentConfig{AllowPrivateEndpoints: true})
	t.Cleanup(a.Close)
	w := wallet.NewT(t, wallet.Options{})
	res, _ := svc.Create(ctx, testOrg, indyRequest())
	inv := w.ReadInvitation(res.InvitationURL)
	c.add(2 * time.Hour)
	got, err := a.Receive(ctx, w.Present(inv, wallet.SampleIndyProof(), false))
	if err != nil || got.State != backend.StateAbandoned {
		t.Fatalf("Receive = %+v, %v", got, err)
	}
	rec, _ := svc.LoadRecord(ctx, res.ProofRecord.ID)
	if rec.State != backend.StateAbandoned || rec.ErrorMessage != ErrorInvitationExpired || rec.ConnectionID == "" {
		t.Fatalf("record %+v", rec)
	}
	if r := w.Next(); r.Type() != TypeProblemReportV2 {
		t.Fatalf("got %s", r.Raw)
	}
}

func TestReached(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t, fileStorage(t))
	res, _ := svc.Create(ctx, testOrg, indyRequest())
	id := res.ProofRecord.ID
	check := func(state string, want bool) {
		t.Helper()
		if got, err := svc.Reached(ctx, id, state); err != nil || got != want {
			t.Fatalf("Reached(%s) = %v, %v, want %v", state, got, err, want)
		}
	}
	check(backend.StateRequestSent, true)
	check(backend.StatePresentationReceived, false)
	if _, err := svc.Abandon(ctx, id, "declined"); err != nil {
		t.Fatal(err)
	}
	check(backend.StateAbandoned, true)
	check(backend.StatePresentationReceived, false) // skipped: a ghost event must not go out
	check(backend.StateRequestSent, true)
}
