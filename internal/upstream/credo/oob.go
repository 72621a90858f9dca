package credo

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/jsonenc"
	"github.com/proofgate/proofgate/internal/jsonpick"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// buildCreate writes credo-controller's CreateProofRequestOobOptions
// (which rejects members it does not know) for the validated request, by
// hand: the bytes json.Marshal wrote of it (TestCreateBodyBytes holds it
// to that).
func (b *Backend) buildCreate(org backend.Org, req backend.OOBRequest) ([]byte, error) {
	out := make([]byte, 0, 512+len(req.PresentationDefinition))
	out = append(out, `{"protocolVersion":`...)
	out = agent.AppendString(out, req.ProtocolVersion)
	out = append(out, `,"proofFormats":`...)
	switch req.RequestType {
	case backend.RequestPresentationExchange:
		out = append(out, `{"presentationExchange":{"presentationDefinition":`...)
		if req.PresentationDefinition == nil {
			out = append(out, "null"...)
		} else {
			var err error
			if out, err = jsonenc.AppendCompact(out, req.PresentationDefinition, true); err != nil {
				return nil, fmt.Errorf("encoding request to agent: presentation definition: %w", err)
			}
		}
		out = append(out, "}}"...)
	default:
		indy := req.Indy.WithBothMaps() // the agent adds the nonce
		out = append(out, `{"indy":`...)
		out = backend.AppendIndyRequest(out, &indy, true)
		out = append(out, '}')
	}
	invitationDID := ""
	if req.ReuseConnection {
		invitationDID = b.InvitationDID
		if did, ok := b.OrgInvitationDIDs[org.ID]; ok {
			invitationDID = did
		}
	}
	for _, m := range [...]struct{ name, value string }{
		{`,"goalCode":`, req.GoalCode},
		{`,"parentThreadId":`, req.ParentThreadID},
		{`,"autoAcceptProof":`, req.AutoAcceptProof},
		{`,"comment":`, req.Comment},
		{`,"label":`, req.Label},
		{`,"invitationDid":`, invitationDID},
	} {
		if m.value != "" {
			out = append(out, m.name...)
			out = agent.AppendString(out, m.value)
		}
	}
	return append(out, '}'), nil
}

// SendOutOfBandRequest creates the request and its invitation in one agent
// call, then reads the new proof record back by thread id, because the
// agent's answer names the thread but not the record. A record proofgate
// already knows is not a new one: such an answer is a bad answer, and the
// record stays whose it was.
func (b *Backend) SendOutOfBandRequest(ctx context.Context, org backend.Org, req backend.OOBRequest) (backend.OOBResult, error) {
	body, err := b.buildCreate(org, req)
	if err != nil {
		return backend.OOBResult{}, err
	}
	call := agent.Request{Method: http.MethodPost, Path: b.createPath(org.Tenant), JSON: body}
	if org.Tenant != "" && !b.legacy {
		// Get the tenant's token first, so that a failure to get it is
		// never mistaken for a create that may have acted.
		if _, err := b.tokens.Get(ctx, org.Tenant); err != nil && !errors.Is(err, agent.ErrNoToken) {
			return backend.OOBResult{}, err
		}
	}
	started := time.Now()
	// The create is not cut off when the caller goes away (the client's
	// timeout still bounds it): its answer names the thread, so a request
	// the agent made for nobody is recorded as an orphan below, by the
	// read-back that then fails, instead of being left untracked.
	resp, err := b.do(context.WithoutCancel(ctx), org, call)
	if err != nil {
		if reason := orphanReason(err); reason != "" {
			b.orphans.Record(org, "", reason, started)
		}
		return backend.OOBResult{}, err
	}
	if resp.Status/100 != 2 {
		return backend.OOBResult{}, b.refused(org, call, resp, false)
	}
	ans, ok := readCreateAnswer(resp.Body)
	var oobID string
	if ok {
		oobID, ok = agent.MessageID(ans.Invitation)
	}
	if !ok || oobID == "" || ans.InvitationURL == "" || ans.ProofRecordThID == "" {
		// The agent created something; what, it did not say.
		b.orphans.Record(org, ans.ProofRecordThID, "answer unreadable", started)
		return backend.OOBResult{}, b.client.BadAnswer(call, "create-request-oob answer without invitation, invitationUrl or proofRecordThId")
	}

	rec, err := b.findByThread(ctx, org, ans.ProofRecordThID)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // the caller went away: nobody gets the invitation
	}
	if err != nil {
		b.client.Logger().Error("proof request created in the agent but its record could not be read back",
			zap.String("thread_id", ans.ProofRecordThID), zap.String("org", org.ID), zap.Error(err))
		if !b.withdrawInvitation(org, oobID) {
			b.orphans.RecordWithInvitation(org, ans.ProofRecordThID, oobID, "record not readable", started)
		}
		return backend.OOBResult{}, &agent.OrphanError{ThreadID: ans.ProofRecordThID, Err: err}
	}
	rec.OrgID = org.ID
	if rec.AutoAcceptProof == "" {
		rec.AutoAcceptProof = req.AutoAcceptProof
	}
	if err := b.owners.Remember(ctx, rec.ID, org, rec.ThreadID, req.RequestType); errors.Is(err, agent.ErrKnownRecord) {
		// The answer names the thread of a record proofgate already knows
		// (another request's): not this create's, so it stays whose it
		// was. What the agent made for this create, if anything, is
		// unknown, and tracked as an unreadable answer is.
		b.orphans.Record(org, "", "answer unreadable", started)
		return backend.OOBResult{}, b.client.BadAnswer(call, "create-request-oob answer names the thread of a proof record proofgate already knows, not a new one")
	} else if err != nil {
		// Nobody gets the invitation, and credo-controller cannot delete
		// the record: its invitation is withdrawn, or, failing that, it is
		// tracked as an orphan like the failures above.
		b.client.Logger().Error("proof request created in the agent but its owner could not be stored",
			zap.String("thread_id", rec.ThreadID), zap.String("proof_record_id", rec.ID),
			zap.String("org", org.ID), zap.Error(err))
		if !b.withdrawInvitation(org, oobID) {
			b.orphans.RecordWithInvitation(org, rec.ThreadID, oobID, "owner not stored", started)
		}
		return backend.OOBResult{}, err
	}
	return backend.OOBResult{
		ProofRecord:   rec,
		Invitation:    ans.Invitation,
		OutOfBandID:   oobID,
		InvitationURL: ans.InvitationURL,
	}, nil
}

// findByThread reads the verifier's record of thread thid.
func (b *Backend) findByThread(ctx context.Context, org backend.Org, thid string) (backend.ProofRecord, error) {
	call := agent.Request{
		Method: http.MethodGet, Path: b.listPath(org.Tenant),
		RawQuery: "threadId=" + url.QueryEscape(thid), Idempotent: true,
	}
	resp, err := b.do(ctx, org, call)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	if resp.Status/100 != 2 {
		return backend.ProofRecord{}, b.refused(org, call, resp, false)
	}
	rec, found, err := verifierRecord(resp.Body, thid)
	if err != nil {
		return backend.ProofRecord{}, b.client.BadAnswer(call, "proof list is not a JSON array")
	}
	if !found {
		return backend.ProofRecord{}, b.client.BadAnswer(call, "no verifier record with the created thread id")
	}
	return rec, nil
}

// verifierRecord finds the first valid verifier record of thread thid in a
// list answer; err when the answer is not a JSON array.
func verifierRecord(list []byte, thid string) (rec backend.ProofRecord, found bool, err error) {
	err = jsonpick.Array(list, recordNames, func(raw []byte, vals [][]byte, odd bool) {
		if found {
			return
		}
		r, err := checkRecord(readRecord(raw, vals, odd))
		// The same thread can have a prover-side record in the same wallet
		// (an agent that proves to itself); ours is the verifier's.
		if err == nil && r.ThreadID == thid && r.Role == backend.RoleVerifier {
			rec, found = r, true
		}
	})
	if err != nil {
		return backend.ProofRecord{}, false, err // what was found is dropped
	}
	return rec, found, nil
}
