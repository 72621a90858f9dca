package proofs

import (
	"context"
	"errors"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
)

func TestDiscard(t *testing.T) {
	ctx := context.Background()
	s := newTestService(t, fileStorage(t))
	org := backend.Org{ID: "org-1"}
	create := func() string {
		res, err := s.Create(ctx, org, indyRequest())
		if err != nil {
			t.Fatal(err)
		}
		return res.ProofRecord.ID
	}

	id := create()
	if err := s.Discard(ctx, backend.Org{ID: "org-2"}, id); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("another org's discard: %v", err)
	}
	if err := s.Discard(ctx, org, id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LoadRecord(ctx, id); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("discarded record still there: %v", err)
	}
	if err := s.Discard(ctx, org, id); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("discarding twice: %v", err)
	}

	moved := create()
	if _, err := s.MarkPresentationReceived(ctx, moved, Presentation{SignaturesVerified: true}); err != nil {
		t.Fatal(err)
	}
	var conflict *backend.ConflictError
	if err := s.Discard(ctx, org, moved); !errors.As(err, &conflict) || conflict.State != backend.StatePresentationReceived {
		t.Fatalf("a record that moved on must stay: %v", err)
	}
	if _, err := s.LoadRecord(ctx, moved); err != nil {
		t.Fatal(err)
	}
}
