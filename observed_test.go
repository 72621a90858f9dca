package proofgate

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/store"
)

// countingStorage is a real file storage that counts loads and can fail
// stores.
type countingStorage struct {
	*certmagic.FileStorage
	loads     atomic.Int32
	failStore atomic.Bool
}

func (s *countingStorage) Load(ctx context.Context, key string) ([]byte, error) {
	s.loads.Add(1)
	return s.FileStorage.Load(ctx, key)
}

func (s *countingStorage) Store(ctx context.Context, key string, value []byte) error {
	if s.failStore.Load() {
		return errors.New("disk full")
	}
	return s.FileStorage.Store(ctx, key, value)
}

func TestObservedStatesSwap(t *testing.T) {
	ctx := context.Background()
	st := &countingStorage{FileStorage: &certmagic.FileStorage{Path: t.TempDir()}}
	o := observedStates{store: store.New(st, "observed"), seen: newSeenStates()}
	const id = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	type step struct {
		state     string
		failStore bool
		wantPrev  string
		wantKnown bool
		wantErr   bool
		wantLoads int32 // storage reads this step makes
	}
	for i, s := range []step{
		{state: "request-sent", wantPrev: "", wantKnown: false, wantLoads: 1},
		{state: "request-sent", wantPrev: "request-sent", wantKnown: true, wantLoads: 0},
		{state: "presentation-received", wantPrev: "request-sent", wantKnown: true, wantLoads: 1},
		{state: "presentation-received", wantPrev: "presentation-received", wantKnown: true, wantLoads: 0},
		{state: "done", failStore: true, wantPrev: "presentation-received", wantKnown: true, wantErr: true, wantLoads: 1},
		// the failed write is not remembered: storage is asked again
		{state: "done", wantPrev: "presentation-received", wantKnown: true, wantLoads: 1},
		{state: "done", wantPrev: "done", wantKnown: true, wantLoads: 0},
	} {
		st.failStore.Store(s.failStore)
		before := st.loads.Load()
		prev, known, err := o.Swap(ctx, id, s.state)
		if (err != nil) != s.wantErr || prev != s.wantPrev || known != s.wantKnown {
			t.Fatalf("step %d: Swap(%s) = %q, %v, %v; want %q, %v, error %v", i, s.state, prev, known, err, s.wantPrev, s.wantKnown, s.wantErr)
		}
		if n := st.loads.Load() - before; n != s.wantLoads {
			t.Errorf("step %d: %d storage reads, want %d", i, n, s.wantLoads)
		}
	}
	// Another instance (no memory) reads what this one stored.
	other := observedStates{store: store.New(st, "observed")}
	if prev, known, err := other.Swap(ctx, id, "done"); err != nil || !known || prev != "done" {
		t.Fatalf("another instance: %q, %v, %v", prev, known, err)
	}
}
