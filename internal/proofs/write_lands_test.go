package proofs

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// writeThenFail is document storage (not *certmagic.FileStorage) whose
// record writes, while failing is set, reach the storage and then report
// failure (a timeout on the reply), as Create's own comment allows.
type writeThenFail struct {
	*certmagic.FileStorage
	failing atomic.Bool
}

func (s *writeThenFail) Store(ctx context.Context, key string, v []byte) error {
	if err := s.FileStorage.Store(ctx, key, v); err != nil {
		return err
	}
	if s.failing.Load() && strings.HasPrefix(key, "proofgate/records/") {
		return errors.New("storage: timeout waiting for the reply")
	}
	return nil
}

// TestAcceptWhoseWriteLandsButFailsSendsItsAck: once a record is done its
// ack cannot be lost, also when the write that made it done reported a
// failure after reaching the storage (a timeout on the reply). The accept
// used to withdraw the ack: the record was done, the ack never went out,
// and no retry could send it (a second accept is a conflict).
func TestAcceptWhoseWriteLandsButFailsSendsItsAck(t *testing.T) {
	st := &writeThenFail{FileStorage: fileStorage(t)}
	svc := newTestService(t, st)
	acks := fastAcks(t, st)
	a := NewAgent(svc, AgentConfig{AllowPrivateEndpoints: true, Acks: acks})
	t.Cleanup(a.Close)
	acks.Start()
	w := wallet.NewT(t, wallet.Options{})
	id := presented(t, a, w)

	st.failing.Store(true)
	rec, err := a.Accept(context.Background(), testOrg, id)
	st.failing.Store(false)
	if err != nil || rec.State != backend.StateDone {
		t.Fatalf("accept whose write landed: %v, %+v; want it answered done", err, rec)
	}
	stored, err := svc.LoadRecord(context.Background(), id)
	if err != nil || stored.State != backend.StateDone {
		t.Fatalf("stored: %v, %+v", err, stored)
	}
	got := make(chan wallet.Received, 1)
	go func() { got <- w.Next() }()
	select {
	case m := <-got:
		if m.Type() != TypeAckV2 {
			t.Fatalf("got %s", m.Raw)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the record is done but its ack never went out")
	}
}
