package proofs

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// pausedConnectionRead is FileStorage whose first read of a connection
// document answers only when released: the connect() making it has read
// "no connection yet" and is about to write.
type pausedConnectionRead struct {
	*certmagic.FileStorage
	once    sync.Once
	reading chan struct{}
	release chan struct{}
}

func (p *pausedConnectionRead) Load(ctx context.Context, key string) ([]byte, error) {
	b, err := p.FileStorage.Load(ctx, key)
	if strings.Contains(key, "/connections/") {
		first := false
		p.once.Do(func() { first = true })
		if first {
			close(p.reading)
			<-p.release
		}
	}
	return b, err
}

// TestConnectionCreatedOnlyByItsKeyHolder proves that an anoncrypted
// presentation naming another prover's key first in its ~service, with
// its own endpoint, cannot make that prover's connection, even when it
// races the prover's own first presentation to the org: the prover's ack
// still goes to the prover. (connect created a missing connection for any
// sender, read-then-write: the attacker's write landed after the victim's
// and took its ack.)
func TestConnectionCreatedOnlyByItsKeyHolder(t *testing.T) {
	ctx := context.Background()
	st := &pausedConnectionRead{FileStorage: &certmagic.FileStorage{Path: t.TempDir()},
		reading: make(chan struct{}), release: make(chan struct{})}
	svc, err := New(st, Config{PublicURL: testPublicURL, Endpoint: testEndpoint})
	if err != nil {
		t.Fatal(err)
	}
	a := NewAgent(svc, AgentConfig{AllowPrivateEndpoints: true, SendTimeout: 5 * time.Second})
	t.Cleanup(a.Close)
	victim := wallet.NewT(t, wallet.Options{})
	attacker := wallet.NewT(t, wallet.Options{})
	create := func() (string, string) {
		req := indyRequest()
		req.AutoAcceptProof = AutoAcceptNever
		res, err := svc.Create(ctx, testOrg, req)
		if err != nil {
			t.Fatal(err)
		}
		return res.ProofRecord.ID, res.InvitationURL
	}
	rAtt, urlAtt := create()
	rVic, urlVic := create()

	// The attacker's presentation (a valid one, so its record is kept):
	// anoncrypted, the victim's key first, its own endpoint and key.
	invA := attacker.ReadInvitation(urlAtt)
	evil := map[string]any{"recipientKeys": []string{victim.Verkey(), attacker.Verkey()}, "routingKeys": []string{}, "serviceEndpoint": attacker.URL()}
	attDone := make(chan error, 1)
	go func() {
		_, err := a.Receive(ctx, attacker.Pack(invA, attacker.Presentation(invA, wallet.SampleIndyProof(), wallet.PresentOptions{Service: evil}), true))
		attDone <- err
	}()
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(st.release) }) }
	select {
	case <-st.reading: // the attacker's connect() found no connection
	case err := <-attDone:
		// connect read no connection document: no window to race.
		release()
		attDone <- err
	}

	// The victim's first presentation to the org, anoncrypted too.
	invV := victim.ReadInvitation(urlVic)
	if _, err := a.Receive(ctx, victim.Pack(invV, victim.Presentation(invV, wallet.SampleIndyProof(), wallet.PresentOptions{}), true)); err != nil {
		t.Fatal(err)
	}
	release()
	if err := <-attDone; err != nil {
		t.Fatal(err)
	}

	// Neither anoncrypted presentation made a connection: each record
	// keeps the ~service it brought.
	for _, id := range []string{rAtt, rVic} {
		if doc, err := svc.Load(ctx, id); err != nil || doc.Record.ConnectionID != "" {
			t.Fatalf("record %s: connection %q, %v; want none", id, doc.Record.ConnectionID, err)
		}
	}
	if _, err := svc.LoadConnection(ctx, testOrg.ID, ConnectionID(testOrg.ID, victim.Verkey())); err == nil {
		t.Fatal("a connection was made for the victim's key without its holder")
	}
	if _, err := a.Accept(ctx, testOrg, rVic); err != nil {
		t.Fatal(err)
	}
	if got := victim.Next(); got.ThreadID() != invV.ThreadID {
		t.Fatalf("the victim got %s on thread %s, want its ack on %s", got.Type(), got.ThreadID(), invV.ThreadID)
	}
	attacker.None()
}
