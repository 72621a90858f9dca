package local

import (
	"context"

	"github.com/proofgate/proofgate/internal/backend"
)

// SetRecordMetadata implements backend.MetadataSetter.
func (l *Local) SetRecordMetadata(ctx context.Context, proofRecordID, key string, value any) error {
	return l.svc.SetMetadata(ctx, proofRecordID, key, value)
}

var _ backend.MetadataSetter = (*Local)(nil)
