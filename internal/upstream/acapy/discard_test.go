package acapy

import (
	"context"
	"errors"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

func TestDiscardRecord(t *testing.T) {
	fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{APIKey: "admin-key"})
	b := newBackend(t, fake, func(b *Backend) { b.APIKey = "admin-key" })
	ctx := context.Background()
	org := backend.Org{ID: "org-1"}
	res, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(fake.Records("")); n != 1 {
		t.Fatalf("%d records at the agent", n)
	}
	if err := b.DiscardRecord(ctx, org, res.ProofRecord.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(fake.Records("")); n != 0 {
		t.Fatalf("the agent still holds %d records", n)
	}
	if _, err := b.RecordOrg(ctx, res.ProofRecord.ID); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("ownership still remembered: %v", err)
	}
}
