package proofs

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/didkey"
)

func recipientKey(t *testing.T, inv json.RawMessage) string {
	t.Helper()
	var i Invitation
	if err := json.Unmarshal(inv, &i); err != nil {
		t.Fatal(err)
	}
	return i.Services[0].RecipientKeys[0]
}

func TestOrgKeyStableAcrossCallsAndRestart(t *testing.T) {
	ctx := context.Background()
	st := fileStorage(t)
	s := newTestService(t, st)
	a, err := s.Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Create(ctx, testOrg, peRequest())
	if err != nil {
		t.Fatal(err)
	}
	key := recipientKey(t, a.Invitation)
	if recipientKey(t, b.Invitation) != key {
		t.Fatal("org key changed between calls")
	}
	other, err := s.Create(ctx, backend.Org{ID: "another-org"}, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	if recipientKey(t, other.Invitation) == key {
		t.Fatal("two orgs share a key")
	}

	// A new instance on the same storage (a restart) uses the same key.
	restarted := newTestService(t, st)
	c, err := restarted.Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	if recipientKey(t, c.Invitation) != key {
		t.Fatal("org key changed across a restart")
	}
	// And it can decrypt for it: the key is found by its verkey.
	pub, _ := didkey.Decode(key)
	r, err := restarted.RecipientKey(ctx, didkey.Verkey(pub))
	if err != nil || r.OrgID != testOrg.ID || r.RecordID != "" || !pub.Equal(r.Key.Public()) {
		t.Fatalf("RecipientKey = %+v, %v", r, err)
	}
	// The private key is not in the record.
	raw, err := restarted.records.Load(ctx, c.ProofRecord.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"seed"`) {
		t.Fatal("record of an org-key request holds a seed")
	}
}

func TestOrgKeyConcurrentFirstUse(t *testing.T) {
	ctx := context.Background()
	st := fileStorage(t)
	// Two instances on one storage, each with several concurrent callers.
	services := []*Service{newTestService(t, st), newTestService(t, st)}
	const n = 8
	keys := make([]string, 2*n)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := services[i%2].OrgKey(ctx, "org-race")
			if err != nil {
				t.Error(err)
				return
			}
			keys[i] = didkey.Verkey(k.Public().(ed25519.PublicKey))
		}()
	}
	wg.Wait()
	for _, k := range keys {
		if k != keys[0] {
			t.Fatalf("concurrent first use created several keys: %v", keys)
		}
	}
	names, err := st.List(ctx, "proofgate/keys", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 2 { // the key and the org's pointer to it
		t.Fatalf("key documents %v", names)
	}
}

func TestFreshKeyPerRequest(t *testing.T) {
	ctx := context.Background()
	st := fileStorage(t)
	s := newTestService(t, st)
	orgKey, err := s.OrgKey(ctx, testOrg.ID)
	if err != nil {
		t.Fatal(err)
	}
	req := indyRequest()
	req.ReuseConnection = false
	seen := map[string]bool{didkey.Encode(orgKey.Public().(ed25519.PublicKey)): true}
	for i := 0; i < 3; i++ {
		res, err := s.Create(ctx, testOrg, req)
		if err != nil {
			t.Fatal(err)
		}
		key := recipientKey(t, res.Invitation)
		if seen[key] {
			t.Fatalf("key %s reused", key)
		}
		seen[key] = true
		pub, _ := didkey.Decode(key)
		if RecordIDForKey(pub).String() != res.ProofRecord.ID {
			t.Fatal("record id is not derived from its key")
		}
		// The private key is kept, in the record, and found by its verkey
		// after a restart.
		r, err := newTestService(t, st).RecipientKey(ctx, didkey.Verkey(pub))
		if err != nil || r.RecordID != res.ProofRecord.ID || r.OrgID != testOrg.ID || !pub.Equal(r.Key.Public()) {
			t.Fatalf("RecipientKey = %+v, %v", r, err)
		}
	}
	stranger, _, _ := didkey.Generate()
	for _, vk := range []string{didkey.Verkey(stranger), "junk", ""} {
		if _, err := s.RecipientKey(ctx, vk); !errors.Is(err, backend.ErrNotFound) {
			t.Errorf("RecipientKey(%q) = %v, want ErrNotFound", vk, err)
		}
	}
}
