package proofs

import (
	"context"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
)

// autoAcceptProof values of a request.
const (
	AutoAcceptAlways          = "always"
	AutoAcceptContentApproved = "contentApproved"
	AutoAcceptNever           = "never"
)

// autoAccept accepts a record that has just received its presentation
// when its request asked for it: "always", or "contentApproved" and the
// presentation passed verification (contentApproved). The ack is queued
// like any accept's and delivered by the outbox workers, not inline: the
// prover's own request, which brought the presentation, is still open.
// It returns the record's state afterwards. A failed accept leaves the
// record in presentation-received, where accept-presentation can still
// take it.
func (a *Agent) autoAccept(ctx context.Context, rec backend.ProofRecord) string {
	switch rec.AutoAcceptProof {
	case AutoAcceptAlways:
	case AutoAcceptContentApproved:
		if !a.svc.contentApproved(rec) {
			return rec.State
		}
	default: // never, or unset: wait for accept-presentation
		return rec.State
	}
	doc, err := a.svc.accept(ctx, backend.Org{ID: rec.OrgID}, rec.ID, a.stageAck)
	if err != nil {
		a.logger.Warn("auto-accepting a presentation failed; accept-presentation can still accept it",
			zap.String("proof_record_id", rec.ID), zap.Error(err))
		return rec.State
	}
	a.releaseAck(doc.Record.ID)
	return doc.Record.State
}

// contentApproved reports whether a received presentation passed
// verification: with verifiers configured, their verdict (isVerified
// true); without, the structural check that it answers the request.
func (s *Service) contentApproved(rec backend.ProofRecord) bool {
	if rec.IsVerified != nil {
		return *rec.IsVerified
	}
	if len(s.cfg.Verifiers) > 0 {
		return false
	}
	v, _ := rec.Metadata["verification"].(map[string]any)
	answers, _ := v["answersRequest"].(bool)
	return answers
}
