package acapy

import (
	"context"

	"github.com/proofgate/proofgate/internal/backend"
)

// DiscardRecord implements backend.Discarder: it deletes the presentation
// exchange record at the agent (so its invitation can never be answered)
// and forgets its owner.
func (b *Backend) DiscardRecord(ctx context.Context, org backend.Org, proofRecordID string) error {
	b.discard(org, proofRecordID)
	return b.owners.Forget(ctx, proofRecordID)
}

var _ backend.Discarder = (*Backend)(nil)
