package credo

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// AcceptPresentation accepts the presentation of record id in the org's
// agent (which sends the ack) and returns the record, now done.
func (b *Backend) AcceptPresentation(ctx context.Context, org backend.Org, id string) (backend.ProofRecord, error) {
	call := agent.Request{Method: http.MethodPost, Path: b.acceptPath(id, org.Tenant)}
	resp, err := b.do(ctx, org, call)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	if resp.Status/100 != 2 {
		if state, ok := invalidState(resp); ok {
			return backend.ProofRecord{}, &backend.ConflictError{State: state}
		}
		return backend.ProofRecord{}, b.client.StatusError(call, resp, true)
	}
	rec, err := normalize(resp.Body)
	if err != nil {
		return backend.ProofRecord{}, b.client.BadAnswer(call, err.Error())
	}
	rec.OrgID = org.ID
	return rec, nil
}

// credo-controller reports a record in the wrong state as a 500 whose
// message is Credo's: "CredoError: Proof record is in invalid state
// request-sent. Valid states are: presentation-received." (older versions
// prefix it with "something went wrong: ").
var invalidStateRE = regexp.MustCompile(`Proof record is in invalid state ([A-Za-z-]+)`)

func invalidState(resp *agent.Response) (string, bool) {
	if resp.Status < 400 {
		return "", false
	}
	m := invalidStateRE.FindStringSubmatch(agent.Message(resp.Body))
	if m == nil {
		return "", false
	}
	return strings.TrimSuffix(m[1], "."), true
}

// normalize reads a Credo ProofExchangeRecord (its JSON is already the
// shape proofgate answers with) and checks what proofgate relies on.
func normalize(raw []byte) (backend.ProofRecord, error) {
	var rec backend.ProofRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return rec, errors.New("proof record is not a JSON object")
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

// RecordOrgIn reports whether record id belongs to org: it was created
// through proofgate for org, or (created elsewhere) org's agent holds it.
// Only tenant isolation makes the second answer an ownership proof; for a
// dedicated agent shared by several orgs the caller must not rely on it.
func (b *Backend) RecordOrgIn(ctx context.Context, org backend.Org, id string) (bool, error) {
	return b.owners.OwnedBy(ctx, org, id, func() (bool, error) {
		call := agent.Request{Method: http.MethodGet, Path: b.getPath(id, org.Tenant), Idempotent: true}
		resp, err := b.do(ctx, org, call)
		if err != nil {
			return false, err
		}
		if resp.Status/100 == 2 {
			return true, nil
		}
		if err := b.client.StatusError(call, resp, true); !errors.Is(err, backend.ErrNotFound) {
			return false, err
		}
		return false, nil
	})
}
