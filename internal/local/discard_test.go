package local

import (
	"context"
	"errors"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
)

// TestDiscardRecord: a discarded create's local record goes, and with it
// its invitation (the local record is the invitation); another org's
// discard of it is refused and leaves it.
func TestDiscardRecord(t *testing.T) {
	l, _ := provision(t, `{"public_url":"https://verifier.example.com","storage":"STORAGE"}`)
	ctx := context.Background()
	org := backend.Org{ID: "org-1"}
	res, err := l.SendOutOfBandRequest(ctx, org, backend.OOBRequest{
		RequestType: backend.RequestIndy, ProtocolVersion: backend.ProtocolV2,
		Indy: &backend.IndyProofRequest{Name: "p", Version: "1.0",
			RequestedAttributes: map[string]backend.IndyAttribute{"a": {Name: "name"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := res.ProofRecord.ID
	if err := l.DiscardRecord(ctx, backend.Org{ID: "org-2"}, res); err == nil {
		t.Fatal("another org discarded the record")
	}
	if _, _, err := l.Invitation(ctx, id); err != nil {
		t.Fatalf("the record went with another org's discard: %v", err)
	}
	if err := l.DiscardRecord(ctx, org, res); err != nil {
		t.Fatal(err)
	}
	if _, err := l.LoadRecord(ctx, id); !errors.Is(err, backend.ErrNotFound) {
		t.Errorf("LoadRecord after the discard: %v", err)
	}
	if _, _, err := l.Invitation(ctx, id); !errors.Is(err, backend.ErrNotFound) {
		t.Errorf("Invitation after the discard: %v", err)
	}
}
