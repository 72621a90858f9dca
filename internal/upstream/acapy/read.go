package acapy

import (
	"context"
	"net/http"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// Interface guard: GET /proofs/{id} on ACA-Py records.
var _ backend.RecordReader = (*Backend)(nil)

// GetProofRecord implements backend.RecordReader: GET
// /present-proof-2.0/records/{id} in the org's wallet, validated and
// normalized to the ProofRecord shape.
func (b *Backend) GetProofRecord(ctx context.Context, org backend.Org, id string) (backend.ProofRecord, error) {
	rec, err := b.get(ctx, org, id)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	if rec.ID != id {
		call := agent.Request{Method: http.MethodGet, Path: recordPath(id)}
		return backend.ProofRecord{}, b.client.BadAnswer(call, "the agent answered with another record")
	}
	rec.OrgID = org.ID
	return rec, nil
}
