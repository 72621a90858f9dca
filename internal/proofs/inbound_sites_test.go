package proofs

import (
	"context"
	"crypto/ed25519"
	"errors"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/didkey"
	"github.com/proofgate/proofgate/internal/keyseal"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
	"github.com/proofgate/proofgate/internal/verify"
)

// Two local backends on one storage (two sites sharing the ack and mail
// deliverers) see each other's records and keys, but each has its own
// policy: verifiers, trusted issuers, invitation_ttl, the outbound guard.

const orgOfSiteA = "a0000000-0000-4000-8000-000000000001"

// twoSites returns the agents of site A and site B on storage, with their
// configurations' Verifiers and Sealer.
func twoSites(t *testing.T, storage certmagic.Storage, a, b Config) (*Agent, *Agent) {
	t.Helper()
	a.PublicURL, a.Endpoint = "https://a.example.com", "https://a.example.com/didcomm"
	b.PublicURL, b.Endpoint = "https://b.example.com", "https://b.example.com/didcomm"
	var agents []*Agent
	for _, cfg := range []Config{a, b} {
		svc, err := New(storage, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(svc.Close)
		ag := NewAgent(svc, AgentConfig{SendTimeout: time.Second})
		t.Cleanup(ag.Close)
		agents = append(agents, ag)
	}
	return agents[0], agents[1]
}

// refusingVerifier fails every presentation, as site A's trusted_issuers
// would for this issuer.
func refusingVerifier() *fakeVerifier {
	return &fakeVerifier{formats: allFormats, verdict: func(_ context.Context, in verify.Input) (verify.Verdict, error) {
		return verify.Fail(in.Format, verify.ReasonUntrustedIssuer, "issuer not in trusted_issuers"), nil
	}}
}

// TestReceiveRefusesAnotherSitesRecord proves that a presentation for a
// record of site A posted to site B's DIDComm endpoint is refused as a
// message on an unknown thread, without site B's verifiers judging it,
// and that site A, at its own endpoint, judges it by its own policy.
// (Site B used to judge it: a verifier that accepts anything made a record
// of site A, whose policy refuses the issuer, isVerified true.)
func TestReceiveRefusesAnotherSitesRecord(t *testing.T) {
	ctx := context.Background()
	strict, lax := refusingVerifier(), &fakeVerifier{formats: allFormats}
	siteA, siteB := twoSites(t, fileStorage(t), Config{Verifiers: verify.NewSet(strict)}, Config{Verifiers: verify.NewSet(lax)})
	res, err := siteA.Service().Create(ctx, backend.Org{ID: orgOfSiteA}, peRequest())
	if err != nil {
		t.Fatal(err)
	}
	w := wallet.NewT(t, wallet.Options{NoEndpoint: true})
	inv := w.ReadInvitation(res.InvitationURL)
	env := w.Present(inv, vp(inv), true)

	if got, err := siteB.Receive(ctx, env); !errors.Is(err, ErrUnknownThread) {
		t.Fatalf("site B's Receive of site A's presentation: %+v, %v; want ErrUnknownThread", got, err)
	}
	if rec, _ := siteA.Service().LoadRecord(ctx, res.ProofRecord.ID); rec.State != backend.StateRequestSent || lax.calls.Load() != 0 {
		t.Fatalf("after site B refused it: record %s, site B's verifier called %d times", rec.State, lax.calls.Load())
	}
	if _, err := siteA.Receive(ctx, env); err != nil {
		t.Fatal(err)
	}
	rec, _ := siteA.Service().LoadRecord(ctx, res.ProofRecord.ID)
	if rec.State != backend.StateAbandoned || rec.IsVerified == nil || *rec.IsVerified || strict.calls.Load() != 1 {
		t.Fatalf("site A's own judgement: %s isVerified=%v, its verifier called %d times", rec.State, rec.IsVerified, strict.calls.Load())
	}
}

// TestReceiveAnotherSiteDoesNotAutoAccept proves that a contentApproved
// request of site A, which verifies signatures, is not auto-accepted by a
// site B that verifies nothing. (It was: done on site B's structural check
// alone, with the ack queued.)
func TestReceiveAnotherSiteDoesNotAutoAccept(t *testing.T) {
	ctx := context.Background()
	siteA, siteB := twoSites(t, fileStorage(t), Config{Verifiers: verify.NewSet(refusingVerifier())}, Config{})
	req := peRequest()
	req.AutoAcceptProof = AutoAcceptContentApproved
	res, err := siteA.Service().Create(ctx, backend.Org{ID: orgOfSiteA}, req)
	if err != nil {
		t.Fatal(err)
	}
	w := wallet.NewT(t, wallet.Options{NoEndpoint: true})
	inv := w.ReadInvitation(res.InvitationURL)
	if _, err := siteB.Receive(ctx, w.Present(inv, vp(inv), true)); !errors.Is(err, ErrUnknownThread) {
		t.Fatalf("site B's Receive: %v; want ErrUnknownThread", err)
	}
	if rec, _ := siteA.Service().LoadRecord(ctx, res.ProofRecord.ID); rec.State != backend.StateRequestSent {
		t.Fatalf("site A's contentApproved record is %s (isVerified %v) after site B refused its presentation", rec.State, rec.IsVerified)
	}
}

// TestReceiveRefusesAnotherSitesOlderRecord proves that a record stored
// before records named their endpoint is still answered only where its
// invitation sent the wallet: the invitation's service endpoint decides.
func TestReceiveRefusesAnotherSitesOlderRecord(t *testing.T) {
	ctx := context.Background()
	siteA, siteB := twoSites(t, fileStorage(t), Config{}, Config{})
	res, err := siteA.Service().Create(ctx, backend.Org{ID: orgOfSiteA}, peRequest())
	if err != nil {
		t.Fatal(err)
	}
	doc, err := siteA.Service().Load(ctx, res.ProofRecord.ID)
	if err != nil || doc.Endpoint != "https://a.example.com/didcomm" {
		t.Fatalf("the record's endpoint: %q, %v", doc.Endpoint, err)
	}
	doc.Endpoint = "" // as an older version stored it
	if err := siteA.Service().records.Put(ctx, doc.Record.ID, siteA.Service().sealedDoc(doc)); err != nil {
		t.Fatal(err)
	}
	w := wallet.NewT(t, wallet.Options{NoEndpoint: true})
	inv := w.ReadInvitation(res.InvitationURL)
	env := w.Present(inv, vp(inv), true)
	if _, err := siteB.Receive(ctx, env); !errors.Is(err, ErrUnknownThread) {
		t.Fatalf("site B's Receive of an older record of site A: %v; want ErrUnknownThread", err)
	}
	if got, err := siteA.Receive(ctx, env); err != nil || got.State != backend.StatePresentationReceived {
		t.Fatalf("site A's Receive of its older record: %+v, %v", got, err)
	}
}

// TestReceiveAnotherSitesSealedKey proves that an envelope or a thread
// whose key is sealed under another backend's key_encryption_key is
// refused as not ours (the uniform 400), not failed with the keyseal error
// (a 500 logged as an error, on a request anyone may send).
func TestReceiveAnotherSitesSealedKey(t *testing.T) {
	ctx := context.Background()
	siteA, siteB := twoSites(t, fileStorage(t), Config{Sealer: sealer(t, kek(t))}, Config{Sealer: sealer(t, kek(t))})
	orgA, orgB := backend.Org{ID: orgOfSiteA}, backend.Org{ID: "b0000000-0000-4000-8000-000000000002"}
	own := peRequest()
	own.ReuseConnection = false
	w := wallet.NewT(t, wallet.Options{NoEndpoint: true})
	refused := func(what string, env []byte) {
		t.Helper()
		_, err := siteB.Receive(ctx, env)
		if !errors.Is(err, ErrNotForUs) && !errors.Is(err, ErrUnknownThread) {
			t.Errorf("%s posted to site B: %v; want ErrNotForUs or ErrUnknownThread", what, err)
		}
		if errors.Is(err, keyseal.ErrUnknownKey) {
			t.Errorf("%s: the keyseal error reaches the caller", what)
		}
	}

	// Encrypted to site A's org key.
	res, err := siteA.Service().Create(ctx, orgA, peRequest())
	if err != nil {
		t.Fatal(err)
	}
	inv := w.ReadInvitation(res.InvitationURL)
	refused("a presentation to site A's org key", w.Present(inv, vp(inv), true))

	// Encrypted to a record key of site A.
	res, err = siteA.Service().Create(ctx, orgA, own)
	if err != nil {
		t.Fatal(err)
	}
	inv = w.ReadInvitation(res.InvitationURL)
	refused("a presentation to a record key of site A", w.Present(inv, vp(inv), true))

	// Encrypted to an org key of site B (which site B opens), on the
	// thread of a record of site A with a key of its own.
	bKey, err := siteB.Service().OrgKey(ctx, orgB.ID)
	if err != nil {
		t.Fatal(err)
	}
	bVerkey := didkey.Verkey(bKey.Public().(ed25519.PublicKey))
	refused("a presentation to site B's org key on a thread of site A", w.PackTo(bVerkey, w.Presentation(inv, vp(inv), wallet.PresentOptions{}), true))
}

// TestReceiveSamePolicyAnotherEndpoint proves that a backend with the
// policy a record was made under takes it at its own endpoint (instances
// of one cluster configured alike, each advertising its own endpoint,
// behind something that routes a wallet to any of them), and that one with
// another policy does not.
func TestReceiveSamePolicyAnotherEndpoint(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		policyB string
		taken   bool
	}{{"policy-1", true}, {"policy-2", false}} {
		siteA, siteB := twoSites(t, fileStorage(t), Config{Policy: "policy-1"}, Config{Policy: c.policyB})
		res, err := siteA.Service().Create(ctx, backend.Org{ID: orgOfSiteA}, peRequest())
		if err != nil {
			t.Fatal(err)
		}
		w := wallet.NewT(t, wallet.Options{NoEndpoint: true})
		inv := w.ReadInvitation(res.InvitationURL)
		got, err := siteB.Receive(ctx, w.Present(inv, vp(inv), true))
		switch {
		case c.taken && (err != nil || got.State != backend.StatePresentationReceived):
			t.Errorf("policy %s: Receive at another endpoint: %+v, %v; want it taken", c.policyB, got, err)
		case !c.taken && !errors.Is(err, ErrUnknownThread):
			t.Errorf("policy %s: Receive at another endpoint: %+v, %v; want ErrUnknownThread", c.policyB, got, err)
		}
	}
}
