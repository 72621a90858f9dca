package handlers

import (
	"context"
	"errors"
	"slices"
	"testing"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
)

// agentDouble is a backend that does not report its own transitions (an
// agent) and knows the owner of every record.
type agentDouble struct{}

func (agentDouble) SendOutOfBandRequest(context.Context, backend.Org, backend.OOBRequest) (backend.OOBResult, error) {
	return backend.OOBResult{}, nil
}
func (agentDouble) AcceptPresentation(context.Context, backend.Org, string) (backend.ProofRecord, error) {
	return backend.ProofRecord{}, nil
}
func (agentDouble) RecordOrg(context.Context, string) (string, error) { return "org-a", nil }

// stateMap is a StateMemory in a map.
type stateMap map[string]string

func (m stateMap) Last(_ context.Context, id, _ string) (string, bool, error) {
	prev, ok := m[id]
	return prev, ok, nil
}

func (m stateMap) Remember(_ context.Context, id, state string) error {
	m[id] = state
	return nil
}

// crashingMemory is a stateMap whose process dies (the test's panic) when
// it is told to remember a state whose change sink has not staged it.
type crashingMemory struct {
	stateMap
	sink *flakySink
}

func (m crashingMemory) Remember(ctx context.Context, id, state string) error {
	if !slices.ContainsFunc(m.sink.staged, func(c backend.StateChange) bool { return c.Record.ID == id && c.Record.State == state }) {
		panic("crash: " + id + " remembered as " + state + " before its change was staged")
	}
	return m.stateMap.Remember(ctx, id, state)
}

// flakySink fails its first fail stagings, then records each change.
type flakySink struct {
	fail   int
	staged []backend.StateChange
}

func (s *flakySink) Stage(_ context.Context, c backend.StateChange) (backend.Staged, error) {
	if s.fail > 0 {
		s.fail--
		return nil, errors.New("outbox storage unavailable")
	}
	s.staged = append(s.staged, c)
	return backend.NopStaged{}, nil
}

// changeReport is one way the gateway learns of a change of an agent's
// record.
type changeReport struct {
	name   string
	report func(g *Gateway)
}

// changeReports are the ways record r1, last seen in request-sent, comes
// to be in rec's state: seen by a read, made by an accept, or (last)
// created in it.
func changeReports(rec backend.ProofRecord) []changeReport {
	return []changeReport{
		{"observed", func(g *Gateway) { g.observe(context.Background(), agentDouble{}, rec) }},
		{"made", func(g *Gateway) { g.reportChange(context.Background(), agentDouble{}, backend.StateRequestSent, rec) }},
		{"created in another state", func(g *Gateway) { g.reportChange(context.Background(), agentDouble{}, "", rec) }},
	}
}

// A change seen on an agent's record, or made by an accept, that cannot
// be queued is not taken as known: the next read reports it again.
func TestChangeNotQueuedIsReportedAgain(t *testing.T) {
	rec := backend.ProofRecord{ID: "r1", State: backend.StatePresentationReceived}
	for _, tt := range changeReports(rec)[:2] {
		t.Run(tt.name, func(t *testing.T) {
			sink := &flakySink{fail: 1}
			g := &Gateway{Logger: zap.NewNop(), Changes: sink, Observed: stateMap{"r1": backend.StateRequestSent}}
			tt.report(g)                                        // staging fails
			g.observe(context.Background(), agentDouble{}, rec) // the next read, the outbox back
			g.observe(context.Background(), agentDouble{}, rec) // and one more: reported once
			if len(sink.staged) != 1 || sink.staged[0].PreviousState != backend.StateRequestSent {
				t.Fatalf("staged %+v, want the change from request-sent once", sink.staged)
			}
		})
	}
}

// A new state is stored only after its change is staged: a process dying
// between the two must leave the old state stored, so the next read
// reports the change instead of taking it as known.
func TestStateRememberedOnlyOnceStaged(t *testing.T) {
	rec := backend.ProofRecord{ID: "r1", State: backend.StatePresentationReceived}
	for _, tt := range changeReports(rec) {
		t.Run(tt.name, func(t *testing.T) {
			sink := &flakySink{}
			mem := crashingMemory{stateMap: stateMap{"r1": backend.StateRequestSent}, sink: sink}
			g := &Gateway{Logger: zap.NewNop(), Changes: sink, Observed: mem}
			tt.report(g)
			if len(sink.staged) != 1 || mem.stateMap["r1"] != rec.State {
				t.Fatalf("staged %+v, remembered %q; want one change and %q", sink.staged, mem.stateMap["r1"], rec.State)
			}
		})
	}
}
