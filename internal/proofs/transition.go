package proofs

import (
	"context"
	"errors"
	"slices"

	"github.com/proofgate/proofgate/internal/backend"
)

// sinkRef boxes a ChangeSink for an atomic pointer.
type sinkRef struct{ sink backend.ChangeSink }

// SetChangeSink makes every transition of a record (each state change
// Service.update writes) staged with sink before it is stored and
// committed after (backend.ChangeReporter). Creations are reported by the
// gateway, which knows when the whole request has succeeded.
func (s *Service) SetChangeSink(sink backend.ChangeSink) {
	if sink == nil {
		s.sink.Store(nil)
		return
	}
	s.sink.Store(&sinkRef{sink})
}

// stageTransition stages the notifications of doc's transition from
// prev, if its state changed, and what extra stages.
func (s *Service) stageTransition(ctx context.Context, prev string, doc *Doc, extra func(context.Context, *Doc) (backend.Staged, error)) (backend.Staged, error) {
	var all stagedList
	if doc.Record.State == prev {
		return all, nil
	}
	if len(doc.States) == 0 {
		doc.States = append(doc.States, prev)
	}
	doc.States = append(doc.States, doc.Record.State)
	if ref := s.sink.Load(); ref != nil {
		st, err := ref.sink.Stage(ctx, backend.StateChange{
			ID:            backend.ChangeID(doc.Record.ID, doc.Record.State),
			PreviousState: prev,
			Record:        doc.Record,
		})
		if err != nil {
			return nil, err
		}
		all = append(all, st)
	}
	if extra != nil {
		st, err := extra(ctx, doc)
		if err != nil {
			all.Abort(ctx)
			return nil, err
		}
		if st != nil {
			all = append(all, st)
		}
	}
	return all, nil
}

// stagedList releases or withdraws several staged notifications.
type stagedList []backend.Staged

func (l stagedList) Commit() {
	for _, st := range l {
		st.Commit()
	}
}

func (l stagedList) Abort(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	for _, st := range l {
		st.Abort(ctx)
	}
}

// Reached reports whether record id has been in state: the check a
// notification makes before it goes out, since its outbox message is
// written before the transition's own write, and a process that died
// between the two leaves a message for a change that never happened. A
// record that no longer exists (deleted after its retention) counts as
// having reached it.
func (s *Service) Reached(ctx context.Context, id, state string) (bool, error) {
	doc, err := s.Load(ctx, id)
	if errors.Is(err, backend.ErrNotFound) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if doc.Record.State == state || doc.Record.CreatedAt != "" && state == backend.StateRequestSent {
		return true, nil
	}
	return slices.Contains(doc.States, state), nil
}
