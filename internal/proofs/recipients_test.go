package proofs

import (
	"context"
	"crypto/ed25519"
	"errors"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/didcomm"
	"github.com/proofgate/proofgate/internal/didkey"
	"github.com/proofgate/proofgate/internal/testenv/storagetest"
)

func randomVerkeys(t *testing.T, n int) []string {
	keys := make([]string, n)
	for i := range keys {
		pub, _, err := didkey.Generate()
		if err != nil {
			t.Fatal(err)
		}
		keys[i] = didkey.Verkey(pub)
	}
	return keys
}

// TestEnvelopeRecipientsCostBoundedReads: an anonymous envelope naming the
// most recipients allowed, none of them ours, costs at most
// 2*MaxRecipientLookups storage reads, and the same keys again cost none.
func TestEnvelopeRecipientsCostBoundedReads(t *testing.T) {
	cs := &storagetest.CountingLoads{Storage: fileStorage(t)}
	a := NewAgent(newTestService(t, cs), AgentConfig{SendTimeout: time.Second})
	t.Cleanup(a.Close)

	keys := randomVerkeys(t, didcomm.MaxRecipients)
	env, err := didcomm.Pack([]byte(`{"@type":"https://didcomm.org/present-proof/2.0/presentation"}`), keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Receive(context.Background(), env); !errors.Is(err, ErrNotForUs) {
		t.Fatalf("Receive: %v, want ErrNotForUs", err)
	}
	if n := cs.Loads(); n > 2*MaxRecipientLookups {
		t.Errorf("%d storage reads for one envelope of %d unknown recipients, want at most %d", n, len(keys), 2*MaxRecipientLookups)
	}
	// The keys already looked up are remembered as not ours.
	env, err = didcomm.Pack([]byte(`{}`), keys[:MaxRecipientLookups], nil)
	if err != nil {
		t.Fatal(err)
	}
	before := cs.Loads()
	if _, err := a.Receive(context.Background(), env); !errors.Is(err, ErrNotForUs) {
		t.Fatalf("Receive again: %v", err)
	}
	if n := cs.Loads() - before; n != 0 {
		t.Errorf("the same unknown keys again cost %d reads, want 0 (negative cache)", n)
	}
}

// TestRecipientFinderFindsOurKeyAmongOthers: our key still decrypts when it
// comes after a few others, and an org key seen once is answered from
// memory.
func TestRecipientFinderFindsOurKeyAmongOthers(t *testing.T) {
	cs := &storagetest.CountingLoads{Storage: fileStorage(t)}
	s := newTestService(t, cs)
	ctx := context.Background()
	orgKey, err := s.OrgKey(ctx, testOrg.ID)
	if err != nil {
		t.Fatal(err)
	}
	ours := didkey.Verkey(orgKey.Public().(ed25519.PublicKey))
	find := s.RecipientFinder()
	for _, k := range randomVerkeys(t, MaxRecipientLookups-1) {
		if _, err := find(ctx, k); err == nil {
			t.Fatal("a random key was found")
		}
	}
	before := cs.Loads()
	r, err := find(ctx, ours)
	if err != nil || r.OrgID != testOrg.ID {
		t.Fatalf("our key: %+v %v", r, err)
	}
	if n := cs.Loads() - before; n != 0 {
		t.Errorf("a known org key cost %d reads", n)
	}
	// Past the budget, storage is not asked.
	find = s.RecipientFinder()
	before = cs.Loads()
	for _, k := range randomVerkeys(t, 3*MaxRecipientLookups) {
		_, _ = find(ctx, k)
	}
	if n := cs.Loads() - before; n > 2*MaxRecipientLookups {
		t.Errorf("%d reads, want at most %d", n, 2*MaxRecipientLookups)
	}

	// The negative cache is bounded and forgets.
	now := time.Now()
	ab := newAbsentKeys(func() time.Time { return now })
	for i := range maxAbsentKeys + 10 {
		ab.add(string(rune(i)))
	}
	if len(ab.at) != maxAbsentKeys || ab.has(string(rune(0))) || !ab.has(string(rune(maxAbsentKeys+9))) {
		t.Errorf("negative cache holds %d, oldest kept %v", len(ab.at), ab.has(string(rune(0))))
	}
	now = now.Add(absentTTL + time.Second)
	if ab.has(string(rune(maxAbsentKeys + 9))) {
		t.Error("negative entry outlived its TTL")
	}

	// A verkey forgotten (or expired) and added again is not evicted by
	// its older slot, and the cache keeps as many live entries as it may.
	ab = newAbsentKeys(func() time.Time { return now })
	ab.add("again")
	ab.forget("again")
	now = now.Add(time.Second)
	ab.add("again")
	for i := range maxAbsentKeys - 1 {
		ab.add(string(rune(i)))
	}
	if !ab.has("again") || len(ab.at) != maxAbsentKeys {
		t.Errorf("re-added verkey kept %v, %d entries held (want %d)", ab.has("again"), len(ab.at), maxAbsentKeys)
	}
}
