package proofs

import (
	"context"
	"testing"

	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// A connection is its key holder's: a presentation that names another
// prover's key first in its ~service, without being authcrypted by that
// key, neither changes that prover's connection nor takes its acks; the
// holder itself, authcrypting, moves it.
func TestConnectionKeptForItsKeyHolder(t *testing.T) {
	ctx := context.Background()
	a := newTestAgent(t)
	victim := wallet.NewT(t, wallet.Options{})
	attacker := wallet.NewT(t, wallet.Options{})
	create := func() (string, string) {
		res, err := a.Service().Create(ctx, testOrg, indyRequest())
		if err != nil {
			t.Fatal(err)
		}
		return res.ProofRecord.ID, res.InvitationURL
	}

	r1, url1 := create()
	inv1 := victim.ReadInvitation(url1)
	if _, err := a.Receive(ctx, victim.Pack(inv1, victim.Presentation(inv1, wallet.SampleIndyProof(), wallet.PresentOptions{}), false)); err != nil {
		t.Fatal(err)
	}
	doc1, err := a.Service().Load(ctx, r1)
	if err != nil || doc1.Record.ConnectionID != ConnectionID(testOrg.ID, victim.Verkey()) {
		t.Fatalf("the victim's record: connection %q, %v", doc1.Record.ConnectionID, err)
	}

	// Anoncrypted, the victim's key first, the attacker's endpoint.
	r2, url2 := create()
	inv2 := attacker.ReadInvitation(url2)
	evil := map[string]any{"recipientKeys": []string{victim.Verkey(), attacker.Verkey()}, "routingKeys": []string{}, "serviceEndpoint": attacker.URL()}
	if _, err := a.Receive(ctx, attacker.Pack(inv2, attacker.Presentation(inv2, map[string]any{"not": "a proof"}, wallet.PresentOptions{Service: evil}), true)); err != nil {
		t.Fatal(err)
	}
	if got := attacker.Next(); got.ThreadID() != inv2.ThreadID {
		t.Fatalf("the attacker got %s on thread %s, want its own problem report", got.Type(), got.ThreadID())
	}
	doc2, err := a.Service().Load(ctx, r2)
	if err != nil || doc2.Record.ConnectionID != "" {
		t.Fatalf("the attacker's record: connection %q, %v; want none (its own ~service)", doc2.Record.ConnectionID, err)
	}
	c, err := a.Service().LoadConnection(ctx, testOrg.ID, doc1.Record.ConnectionID)
	if err != nil || c.Endpoint != victim.URL() || len(c.RecipientKeys) != 1 {
		t.Fatalf("the victim's connection after the attacker's presentation: %+v, %v", c, err)
	}
	if _, err := a.Accept(ctx, testOrg, r1); err != nil {
		t.Fatal(err)
	}
	if got := victim.Next(); got.ThreadID() != doc1.Record.ThreadID {
		t.Fatalf("the victim got %s on thread %s, want its ack", got.Type(), got.ThreadID())
	}
	attacker.None()

	// The holder moving: authcrypted with its key, a new endpoint.
	r3, url3 := create()
	inv3 := victim.ReadInvitation(url3)
	moved := map[string]any{"recipientKeys": []string{victim.Verkey()}, "routingKeys": []string{}, "serviceEndpoint": victim.URL() + "/moved"}
	if _, err := a.Receive(ctx, victim.Pack(inv3, victim.Presentation(inv3, wallet.SampleIndyProof(), wallet.PresentOptions{Service: moved}), false)); err != nil {
		t.Fatal(err)
	}
	doc3, err := a.Service().Load(ctx, r3)
	if err != nil || doc3.Record.ConnectionID != doc1.Record.ConnectionID {
		t.Fatalf("the moved victim's record: connection %q, %v", doc3.Record.ConnectionID, err)
	}
	if c, err := a.Service().LoadConnection(ctx, testOrg.ID, doc1.Record.ConnectionID); err != nil || c.Endpoint != victim.URL()+"/moved" {
		t.Fatalf("the victim's connection after it moved: %+v, %v", c, err)
	}
}
