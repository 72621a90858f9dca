package proofs

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
)

func TestAccept(t *testing.T) {
	ctx := context.Background()
	s := newTestService(t, fileStorage(t))
	res, err := s.Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	id := res.ProofRecord.ID

	var ce *backend.ConflictError
	if _, err := s.Accept(ctx, testOrg, id); !errors.As(err, &ce) || ce.State != backend.StateRequestSent {
		t.Fatalf("accept in request-sent: %v", err)
	}
	for _, bad := range []string{"8f14e45f-ceea-467f-a0e6-6c3b2f1d0a9e", "not-a-uuid", ""} {
		if _, err := s.Accept(ctx, testOrg, bad); !errors.Is(err, backend.ErrNotFound) {
			t.Fatalf("accept unknown %q: %v", bad, err)
		}
		if _, err := s.RecordOrg(ctx, bad); !errors.Is(err, backend.ErrNotFound) {
			t.Fatalf("RecordOrg unknown %q: %v", bad, err)
		}
	}
	if org, err := s.RecordOrg(ctx, id); err != nil || org != testOrg.ID {
		t.Fatalf("RecordOrg = %q, %v", org, err)
	}

	presentation := json.RawMessage(`{"@type":"https://didcomm.org/present-proof/2.0/presentation","@id":"p1"}`)
	theirs := &ServiceDecorator{RecipientKeys: []string{"4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS"}, RoutingKeys: []string{}, ServiceEndpoint: "https://wallet.example/in"}
	rec, err := s.MarkPresentationReceived(ctx, id, Presentation{Message: presentation, TheirService: theirs, SignaturesVerified: true})
	if err != nil || rec.State != backend.StatePresentationReceived || rec.IsVerified == nil || !*rec.IsVerified {
		t.Fatalf("MarkPresentationReceived = %+v, %v", rec, err)
	}
	if _, err := s.MarkPresentationReceived(ctx, id, Presentation{}); !errors.As(err, &ce) || ce.State != backend.StatePresentationReceived {
		t.Fatalf("second presentation: %v", err)
	}

	// Another org's caller cannot accept it, and learns nothing.
	if _, err := s.Accept(ctx, backend.Org{ID: "intruder"}, id); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("accept by another org: %v", err)
	}

	s.cfg.Now = func() time.Time { return time.Now().Add(time.Second) }
	rec, err = s.Accept(ctx, testOrg, id)
	if err != nil || rec.State != backend.StateDone || rec.UpdatedAt == rec.CreatedAt {
		t.Fatalf("accept: %+v, %v", rec, err)
	}
	// A restart sees done, with the ack on the record's thread.
	doc, err := newTestService(t, s.storage).Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var ack Ack
	if err := json.Unmarshal(doc.Ack, &ack); err != nil {
		t.Fatal(err)
	}
	if doc.Record.State != backend.StateDone || ack.Type != TypeAckV2 || ack.Status != "OK" ||
		ack.Thread.ThID != rec.ThreadID || ack.Thread.PThID != res.OutOfBandID ||
		string(doc.Presentation) != string(presentation) || doc.TheirService.ServiceEndpoint != theirs.ServiceEndpoint {
		t.Fatalf("stored after accept: %+v", doc)
	}
	if _, err := s.Accept(ctx, testOrg, id); !errors.As(err, &ce) || ce.State != backend.StateDone {
		t.Fatalf("second accept: %v", err)
	}
	if _, err := s.Abandon(ctx, id, "late problem report"); !errors.As(err, &ce) || ce.State != backend.StateDone {
		t.Fatalf("abandon done record: %v", err)
	}
}

func TestAbandon(t *testing.T) {
	ctx := context.Background()
	s := newTestService(t, fileStorage(t))
	res, err := s.Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Abandon(ctx, res.ProofRecord.ID, "problem report: declined")
	if err != nil || rec.State != backend.StateAbandoned || rec.ErrorMessage != "problem report: declined" {
		t.Fatalf("Abandon = %+v, %v", rec, err)
	}
	var ce *backend.ConflictError
	if _, err := s.MarkPresentationReceived(ctx, res.ProofRecord.ID, Presentation{}); !errors.As(err, &ce) || ce.State != backend.StateAbandoned {
		t.Fatalf("presentation after abandon: %v", err)
	}
}

func TestConcurrentAccepts(t *testing.T) {
	tests := []struct {
		name      string
		cluster   bool
		instances int // Services on the same storage
	}{
		{"one instance", false, 1},
		{"config reload: old and new instance", false, 2},
		{"cluster locks", true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st := fileStorage(t)
			var instances []*Service
			for range tt.instances {
				s := newTestService(t, st)
				s.cfg.ClusterLocks = tt.cluster
				instances = append(instances, s)
			}
			res, err := instances[0].Create(ctx, testOrg, indyRequest())
			if err != nil {
				t.Fatal(err)
			}
			id := res.ProofRecord.ID
			if _, err := instances[0].MarkPresentationReceived(ctx, id, Presentation{SignaturesVerified: true}); err != nil {
				t.Fatal(err)
			}
			const n = 16
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = instances[i%len(instances)].Accept(ctx, testOrg, id)
				}()
			}
			wg.Wait()
			wins := 0
			for _, err := range errs {
				var ce *backend.ConflictError
				switch {
				case err == nil:
					wins++
				case errors.As(err, &ce) && ce.State == backend.StateDone:
				default:
					t.Fatalf("accept: %v", err)
				}
			}
			if wins != 1 {
				t.Fatalf("%d accepts won, want exactly 1", wins)
			}
		})
	}
}
