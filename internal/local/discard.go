package local

import (
	"context"

	"github.com/proofgate/proofgate/internal/backend"
)

// DiscardRecord implements backend.Discarder: the local record is the
// invitation too (its short URL, if any, is kept in it).
func (l *Local) DiscardRecord(ctx context.Context, org backend.Org, created backend.OOBResult) error {
	return l.svc.Discard(ctx, org, created.ProofRecord.ID)
}

var _ backend.Discarder = (*Local)(nil)
