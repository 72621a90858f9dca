package proofgate

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

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

func TestObservedStatesLastAndRemember(t *testing.T) {
	ctx := context.Background()
	st := &countingStorage{FileStorage: &certmagic.FileStorage{Path: t.TempDir()}}
	o := observedStates{store: store.New(st, "observed"), seen: newSeenStates()}
	const id = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	type step struct {
		remember  bool // Remember(state) instead of Last(state)
		state     string
		failStore bool
		wantPrev  string
		wantKnown bool
		wantErr   bool
		wantLoads int32 // storage reads this step makes
	}
	for i, s := range []step{
		{state: "request-sent", wantPrev: "", wantKnown: false, wantLoads: 1},
		// Last stores nothing: storage is asked again
		{state: "request-sent", wantPrev: "", wantKnown: false, wantLoads: 1},
		{remember: true, state: "request-sent"},
		{state: "request-sent", wantPrev: "request-sent", wantKnown: true, wantLoads: 0},
		{state: "presentation-received", wantPrev: "request-sent", wantKnown: true, wantLoads: 1},
		// a new state is not stored by Last (its change is not queued yet)
		{state: "presentation-received", wantPrev: "request-sent", wantKnown: true, wantLoads: 1},
		{remember: true, state: "presentation-received", failStore: true, wantErr: true},
		// the failed write is not remembered: storage is asked again
		{state: "presentation-received", wantPrev: "request-sent", wantKnown: true, wantLoads: 1},
		{remember: true, state: "presentation-received"},
		{state: "presentation-received", wantPrev: "presentation-received", wantKnown: true, wantLoads: 0},
		// remembering what is stored already writes nothing
		{remember: true, state: "presentation-received", failStore: true},
	} {
		st.failStore.Store(s.failStore)
		before := st.loads.Load()
		if s.remember {
			if err := o.Remember(ctx, id, s.state); (err != nil) != s.wantErr {
				t.Fatalf("step %d: Remember(%s) = %v, want error %v", i, s.state, err, s.wantErr)
			}
			continue
		}
		prev, known, err := o.Last(ctx, id, s.state)
		if (err != nil) != s.wantErr || prev != s.wantPrev || known != s.wantKnown {
			t.Fatalf("step %d: Last(%s) = %q, %v, %v; want %q, %v, error %v", i, s.state, prev, known, err, s.wantPrev, s.wantKnown, s.wantErr)
		}
		if n := st.loads.Load() - before; n != s.wantLoads {
			t.Errorf("step %d: %d storage reads, want %d", i, n, s.wantLoads)
		}
	}
	st.failStore.Store(false)
	// Another instance (no memory) reads what this one stored.
	other := observedStates{store: store.New(st, "observed")}
	if prev, known, err := other.Last(ctx, id, "presentation-received"); err != nil || !known || prev != "presentation-received" {
		t.Fatalf("another instance: %q, %v, %v", prev, known, err)
	}
	// A state seen again half way to its retention is stored again, so
	// the sweeper keeps it.
	old := time.Now().Add(-observedRetention/2 - time.Hour).UTC()
	if err := other.store.Put(ctx, id, observedState{State: "done", SeenAt: old}); err != nil {
		t.Fatal(err)
	}
	if prev, known, err := other.Last(ctx, id, "done"); err != nil || !known || prev != "done" {
		t.Fatalf("refresh: %q, %v, %v", prev, known, err)
	}
	var got observedState
	if err := other.store.Get(ctx, id, &got); err != nil || !got.SeenAt.After(old) {
		t.Fatalf("refresh: stored %+v, %v; want a SeenAt after %v", got, err, old)
	}
}
