package credo

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/jsonpick"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// AcceptPresentation accepts the presentation of record id in the org's
// agent (which sends the ack) and returns the record, now done.
//
// When the agent refuses, the record's state decides whether that is a
// conflict (409): credo-controller 2.1.3 answers a record still in
// request-sent with `500 {"message":"CredoError: No presentation message
// found for proof record with id '<id>'"}` (Credo looks for the
// presentation before it checks the state), and only an already accepted
// one with "Proof record is in invalid state done…". Neither wording is a
// contract, so the state is read back from the agent instead of being
// guessed from the text.
//
// A presentation-exchange presentation is checked against its definition
// first (recheck.go): Credo accepts one that does not meet it.
func (b *Backend) AcceptPresentation(ctx context.Context, org backend.Org, id string) (backend.ProofRecord, error) {
	if b.checksPresentation(id) {
		if err := b.checkPresentation(ctx, org, id); err != nil {
			return backend.ProofRecord{}, err
		}
	}
	call := agent.Request{Method: http.MethodPost, Path: b.acceptPath(id, org.Tenant)}
	resp, err := b.do(ctx, org, call)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	if resp.Status/100 != 2 {
		refused := b.refused(org, call, resp, true)
		if !refusedForState(resp.Status) {
			return backend.ProofRecord{}, refused
		}
		if state, ok := b.stateOf(ctx, org, id); ok && state != backend.StatePresentationReceived {
			return backend.ProofRecord{}, &backend.ConflictError{State: state}
		}
		return backend.ProofRecord{}, refused
	}
	rec, err := b.recordAnswer(call, resp.Body, id)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	rec.OrgID = org.ID
	return rec, nil
}

// refusedForState tells whether an accept refused with status may be a
// state problem: Credo reports those as 500 (CredoError), and a proxy or
// a later version may use 400, 409 or 422. Authentication failures and an
// unknown record (404) are what they say.
func refusedForState(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusConflict, http.StatusUnprocessableEntity, http.StatusInternalServerError:
		return true
	}
	return false
}

// stateOf reads the record's current state with GET /didcomm/proofs/{id}
// (legacy: /proofs/{id}); false when it cannot be read, or the answer is
// about another record (its state would be answered as id's 409).
func (b *Backend) stateOf(ctx context.Context, org backend.Org, id string) (string, bool) {
	call := agent.Request{Method: http.MethodGet, Path: b.getPath(id, org.Tenant), Idempotent: true}
	resp, err := b.do(ctx, org, call)
	if err != nil {
		return "", false
	}
	if resp.Status/100 != 2 {
		_ = b.refused(org, call, resp, true) // logs it
		return "", false
	}
	rec, err := b.recordAnswer(call, resp.Body, id) // logs a bad one
	if err != nil {
		return "", false
	}
	return rec.State, true
}

// recordAnswer reads an answer about record id (agent.Client.RecordAnswer).
func (b *Backend) recordAnswer(call agent.Request, body []byte, id string) (backend.ProofRecord, error) {
	return b.client.RecordAnswer(call, body, id, normalize)
}

// normalize reads a Credo ProofExchangeRecord (its JSON is already the
// shape proofgate answers with) and checks what proofgate relies on.
func normalize(raw []byte) (backend.ProofRecord, error) {
	var vals [len(recordNamesArray)][]byte
	odd, err := jsonpick.Object(raw, recordNames, vals[:])
	if err != nil {
		return backend.ProofRecord{}, errNotObject
	}
	return checkRecord(readRecord(raw, vals[:], odd))
}

var errNotObject = errors.New("proof record is not a JSON object")

// checkRecord checks a record read by readRecord.
func checkRecord(rec backend.ProofRecord, ok bool) (backend.ProofRecord, error) {
	if !ok {
		return rec, errNotObject
	}
	if _, err := uuid.Parse(rec.ID); err != nil {
		return rec, errors.New("proof record id is not a UUID")
	}
	if rec.ThreadID == "" || rec.State == "" {
		return rec, errors.New("proof record without threadId or state")
	}
	if rec.Metadata == nil {
		rec.Metadata = map[string]any{}
	}
	if rec.Role == "" {
		rec.Role = backend.RoleVerifier
	}
	return rec, nil
}

// RecordOrg returns the org that created record id through proofgate.
func (b *Backend) RecordOrg(ctx context.Context, id string) (string, error) {
	return b.owners.OrgOf(ctx, id)
}

// Interface guard: the record's tenant is known where it was remembered.
var _ backend.RecordOwnerFinder = (*Backend)(nil)

// RecordOwner returns the org that created record id through proofgate,
// the tenant and the agent it was created on (backend.RecordOwnerFinder).
func (b *Backend) RecordOwner(ctx context.Context, id string) (backend.Owner, error) {
	return b.owners.OwnerOf(ctx, id)
}

// AgentName names the agent as the owners of its records do
// (backend.AgentNamer).
func (b *Backend) AgentName() string { return b.client.Agent() }

// RecordOrgIn reports whether record id belongs to org: it was created
// through proofgate for org, or (created elsewhere) org's agent answers
// with that record. Any other 2xx (another record, or a page a proxy
// answers every path with) is a bad answer, not "held". Only tenant
// isolation makes the second answer an ownership proof; for a dedicated
// agent shared by several orgs the caller must not rely on it.
func (b *Backend) RecordOrgIn(ctx context.Context, org backend.Org, id string) (bool, error) {
	return b.owners.OwnedBy(ctx, org, id, func() (bool, error) {
		call := agent.Request{Method: http.MethodGet, Path: b.getPath(id, org.Tenant), Idempotent: true}
		resp, err := b.do(ctx, org, call)
		if err != nil {
			return false, err
		}
		if resp.Status/100 == 2 {
			if _, err := b.recordAnswer(call, resp.Body, id); err != nil {
				return false, err
			}
			return true, nil
		}
		if err := b.refused(org, call, resp, true); !errors.Is(err, backend.ErrNotFound) {
			return false, err
		}
		return false, nil
	})
}
