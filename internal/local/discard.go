package local

import (
	"context"

	"github.com/proofgate/proofgate/internal/backend"
)

// DiscardRecord implements backend.Discarder.
func (l *Local) DiscardRecord(ctx context.Context, org backend.Org, proofRecordID string) error {
	return l.svc.Discard(ctx, org, proofRecordID)
}

var _ backend.Discarder = (*Local)(nil)
