package credo

import (
	"context"
	"net/http"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// Interface guard: GET /proofs/{id} on Credo records.
var _ backend.RecordReader = (*Backend)(nil)

// GetProofRecord implements backend.RecordReader: GET
// /didcomm/proofs/{id} (legacy layout: /proofs/{id}) on the org's agent,
// its answer checked (recordAnswer) before it is returned.
func (b *Backend) GetProofRecord(ctx context.Context, org backend.Org, id string) (backend.ProofRecord, error) {
	call := agent.Request{Method: http.MethodGet, Path: b.getPath(id, org.Tenant), Idempotent: true}
	resp, err := b.do(ctx, org, call)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	if resp.Status/100 != 2 {
		return backend.ProofRecord{}, b.client.StatusError(call, resp, true)
	}
	rec, err := b.recordAnswer(call, resp.Body, id)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	rec.OrgID = org.ID
	return rec, nil
}
