package handlers

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
)

// StateMemory remembers the last state the gateway saw of records kept by
// agents, so that a read showing a new state is reported once. Reading
// and storing are two steps so that a new state is stored only once its
// notifications are queued: a process that dies between the two leaves
// the old state stored, and the next read reports the change again
// (under the same event id) instead of taking it as known.
type StateMemory interface {
	// Last returns the state last stored for record id (known false when
	// there is none). When that is state already, the stored copy is
	// refreshed as its retention needs; a different state writes nothing.
	Last(ctx context.Context, id, state string) (previous string, known bool, err error)
	// Remember stores state as record id's last seen state.
	Remember(ctx context.Context, id, state string) error
}

// stageChange stages the notifications of a transition the gateway made
// or saw on a record of a backend that does not report its own (agents;
// a creation goes through stageCreation). A failure to stage is logged:
// the change has happened at the backend and the caller's request must
// not fail for it. Nil when there is nothing to stage.
func (g *Gateway) stageChange(ctx context.Context, b backend.Backend, prev string, rec backend.ProofRecord) backend.Staged {
	st, err := g.stage(ctx, b, prev, rec)
	if err != nil {
		// Nothing is remembered either: the next read finds the state
		// stored before and reports the change again.
		g.Logger.Error("queueing the notifications of a state change failed",
			zap.String("proof_record_id", rec.ID), zap.String("state", rec.State), zap.Error(err))
		return nil
	}
	return st
}

// stageCreation stages the notifications of a record the request is
// creating. Unlike a transition, a creation has not happened for the
// caller until it is answered, and it can still be undone: one whose
// notifications cannot be queued fails (backend.ErrUnavailable, a 503),
// so that the create is undone rather than answered with its event lost
// (no later read reports a creation).
func (g *Gateway) stageCreation(ctx context.Context, b backend.Backend, rec backend.ProofRecord) (backend.Staged, error) {
	st, err := g.stage(ctx, b, "", rec)
	if err != nil {
		return nil, fmt.Errorf("%w: queueing the notifications of the new record: %w", backend.ErrUnavailable, err)
	}
	return st, nil
}

// stage is stageChange's work: the notifications staged, and the state
// remembered once they are.
func (g *Gateway) stage(ctx context.Context, b backend.Backend, prev string, rec backend.ProofRecord) (backend.Staged, error) {
	if g.Changes == nil || rec.ID == "" || rec.State == "" || rec.State == prev {
		return nil, nil
	}
	_, self := b.(backend.ChangeReporter)
	if self && prev != "" {
		return nil, nil
	}
	st, err := g.Changes.Stage(ctx, backend.StateChange{ID: backend.ChangeID(rec.ID, rec.State), PreviousState: prev, Record: rec})
	if err != nil {
		return nil, err
	}
	// Only now, with the notifications durable: remembered first, a crash
	// before the staging would make the next read take the change as
	// known and lose it. A creation in createdState is not stored:
	// observe knows it from the record's owner, and a create through an
	// agent keeps one durable write (the owner) instead of two.
	if !self && (prev != "" || rec.State != createdState) {
		g.remember(ctx, rec)
	}
	return st, nil
}

// reportChange stages and commits at once: for changes that already
// happened at an agent.
func (g *Gateway) reportChange(ctx context.Context, b backend.Backend, prev string, rec backend.ProofRecord) {
	if st := g.stageChange(ctx, b, prev, rec); st != nil {
		st.Commit()
	}
}

// observe reports a state of an agent's record that differs from the last
// one the gateway saw (a presentation that arrived at the agent, say).
func (g *Gateway) observe(ctx context.Context, b backend.Backend, rec backend.ProofRecord) {
	if _, self := b.(backend.ChangeReporter); self || g.Changes == nil || g.Observed == nil {
		return
	}
	prev, stored, err := g.Observed.Last(ctx, rec.ID, rec.State)
	if err != nil {
		g.Logger.Warn("reading a record's last seen state", zap.String("proof_record_id", rec.ID), zap.Error(err))
		return
	}
	known := stored
	if !known && g.createdHere(ctx, b, rec.ID) {
		// Not stored at creation (stageChange), or swept after
		// observedRetention: a record proofgate created began in
		// createdState. (After a sweep, a change reported before may be
		// reported again, with the same event id.)
		prev, known = createdState, true
	}
	switch {
	case known && prev != rec.State:
		g.reportChange(ctx, b, prev, rec) // stores the state once staged
	case !stored:
		// Nothing to report (a record made elsewhere is first seen, not
		// changed): the state is stored so the next read costs no owner
		// lookup and a later change is reported from it.
		g.remember(ctx, rec)
	}
}

// createdState is the state every request proofgate creates in an agent
// starts in: credo-controller and ACA-Py both answer the create with it.
// stageChange does not store it; observe infers it for records proofgate
// created whose state it has not stored yet.
const createdState = backend.StateRequestSent

// createdHere reports whether record id was created through proofgate (b
// knows its owner; the lookup was made, and cached, when the request was
// authorized).
func (g *Gateway) createdHere(ctx context.Context, b backend.Backend, id string) bool {
	_, err := b.RecordOrg(ctx, id)
	return err == nil
}

// remember notes the state the gateway has just caused.
func (g *Gateway) remember(ctx context.Context, rec backend.ProofRecord) {
	if g.Observed == nil {
		return
	}
	if err := g.Observed.Remember(ctx, rec.ID, rec.State); err != nil {
		// The change is queued; the next read reports it again under the
		// same event id, which receivers deduplicate on.
		g.Logger.Warn("remembering a record's state", zap.String("proof_record_id", rec.ID), zap.Error(err))
	}
}
