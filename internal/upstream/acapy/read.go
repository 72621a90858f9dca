package acapy

import (
	"context"

	"github.com/proofgate/proofgate/internal/backend"
)

// Interface guard: GET /proofs/{id} on ACA-Py records.
var _ backend.RecordReader = (*Backend)(nil)

// GetProofRecord implements backend.RecordReader: GET
// /present-proof-2.0/records/{id} in the org's wallet, validated (the
// record asked for, see get) and normalized to the ProofRecord shape.
func (b *Backend) GetProofRecord(ctx context.Context, org backend.Org, id string) (backend.ProofRecord, error) {
	rec, err := b.get(ctx, org, id)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	rec.OrgID = org.ID
	return rec, nil
}
