package proofs

import (
	"context"
	"errors"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
)

func TestSetMetadata(t *testing.T) {
	ctx := context.Background()
	storage := fileStorage(t)
	s := newTestService(t, storage)
	res, err := s.Create(ctx, backend.Org{ID: "org-1"}, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	id := res.ProofRecord.ID
	if err := s.SetMetadata(ctx, id, "email", map[string]any{"status": "sent"}); err != nil {
		t.Fatal(err)
	}
	rec, err := newTestService(t, storage).LoadRecord(ctx, id) // as after a restart
	if err != nil {
		t.Fatal(err)
	}
	if rec.Metadata["email"].(map[string]any)["status"] != "sent" || rec.State != backend.StateRequestSent {
		t.Fatalf("record %+v", rec)
	}
	if err := s.SetMetadata(ctx, "6f2b4a3e-0f5c-4e8e-9d2a-2a7b7c6d5e4f", "k", 1); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("unknown record: %v", err)
	}
}
