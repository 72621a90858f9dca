package handlers

import (
	"context"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
)

// stageChange stages the notifications of a change the gateway caused or
// saw on a record of b: its creation (every backend: the gateway decides
// when a request has succeeded), and, for backends that do not report
// their own transitions (agents), the transitions it made or observed.
// A failure to stage is logged: the change has happened at the backend
// and the caller's request must not fail for it. Nil when there is
// nothing to stage.
func (g *Gateway) stageChange(ctx context.Context, b backend.Backend, prev string, rec backend.ProofRecord) backend.Staged {
	if g.Changes == nil || rec.ID == "" || rec.State == "" || rec.State == prev {
		return nil
	}
	if _, self := b.(backend.ChangeReporter); self && prev != "" {
		return nil
	}
	st, err := g.Changes.Stage(ctx, backend.StateChange{ID: backend.ChangeID(rec.ID, rec.State), PreviousState: prev, Record: rec})
	if err != nil {
		g.Logger.Error("queueing the notifications of a state change failed; they are lost",
			zap.String("proof_record_id", rec.ID), zap.String("state", rec.State), zap.Error(err))
		return nil
	}
	return st
}

// reportChange stages and commits at once: for changes that already
// happened at an agent.
func (g *Gateway) reportChange(ctx context.Context, b backend.Backend, prev string, rec backend.ProofRecord) {
	if st := g.stageChange(ctx, b, prev, rec); st != nil {
		st.Commit()
	}
}
