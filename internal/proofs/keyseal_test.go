package proofs

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/didkey"
	"github.com/proofgate/proofgate/internal/keyseal"
)

func sealer(t *testing.T, keys ...[]byte) *keyseal.Sealer {
	t.Helper()
	s, err := keyseal.New(keys[0], keys[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func kek(t *testing.T) []byte {
	k := make([]byte, keyseal.KeySize)
	_, _ = rand.Read(k)
	return k
}

func sealedService(t *testing.T, storage certmagic.Storage, s *keyseal.Sealer) *Service {
	t.Helper()
	svc, err := New(storage, Config{PublicURL: testPublicURL, Endpoint: testEndpoint, Label: "V", Sealer: s})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// storedFiles returns every document under proofgate/ joined.
func storedFiles(t *testing.T, dir string) string {
	var all bytes.Buffer
	_ = filepath.Walk(filepath.Join(dir, "proofgate"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			all.Write(b)
		}
		return nil
	})
	return all.String()
}

// TestKeysEncryptedAtRest: with a key encryption key, neither the org key
// nor a record key is stored in plaintext, both still decrypt envelopes,
// keys stored in plaintext earlier stay readable (and the org key is
// encrypted on use), and after a rotation the previous key still opens.
func TestKeysEncryptedAtRest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	storage := &certmagic.FileStorage{Path: dir}

	// Before encryption: a plaintext org key and record key.
	plain := sealedService(t, storage, nil)
	orgKey, err := plain.OrgKey(ctx, testOrg.ID)
	if err != nil {
		t.Fatal(err)
	}
	req := indyRequest()
	req.ReuseConnection = false
	oldRec, err := plain.Create(ctx, testOrg, req)
	if err != nil {
		t.Fatal(err)
	}
	oldDoc, _ := plain.Load(ctx, oldRec.ProofRecord.ID)
	if !strings.Contains(storedFiles(t, dir), `"seed":`) {
		t.Fatal("the plaintext setup stored no seed")
	}

	// Turn encryption on: old keys still work; new ones are sealed.
	k1 := kek(t)
	s1 := sealedService(t, storage, sealer(t, k1))
	r, err := s1.RecipientFinder()(ctx, didkey.Verkey(orgKey.Public().(ed25519.PublicKey)))
	if err != nil || !r.Key.Equal(orgKey) {
		t.Fatalf("plaintext org key after enabling encryption: %v", err)
	}
	if r, err := s1.RecipientKey(ctx, oldDoc.Key.Verkey); err != nil || r.RecordID != oldRec.ProofRecord.ID {
		t.Fatalf("plaintext record key after enabling encryption: %v", err)
	}
	newRec, err := s1.Create(ctx, testOrg, req)
	if err != nil {
		t.Fatal(err)
	}
	newDoc, _ := s1.Load(ctx, newRec.ProofRecord.ID)
	if len(newDoc.Key.Seed) != ed25519.SeedSize {
		t.Fatal("the loaded record key is not plaintext in memory")
	}
	raw, _ := s1.records.Load(ctx, newRec.ProofRecord.ID)
	if bytes.Contains(raw, []byte(`"seed"`)) || !bytes.Contains(raw, []byte(`"sealedSeed":"v1.`)) {
		t.Errorf("new record key stored in plaintext: %s", raw)
	}
	orgDoc, _ := os.ReadFile(filepath.Join(dir, "proofgate", "keys", didkey.Verkey(orgKey.Public().(ed25519.PublicKey))+".json"))
	if bytes.Contains(orgDoc, []byte(`"seed"`)) {
		t.Errorf("the org key was not encrypted on use: %s", orgDoc)
	}

	// Without the key, sealed keys do not open (and say why).
	if _, err := sealedService(t, storage, nil).RecipientKey(ctx, newDoc.Key.Verkey); err == nil || !strings.Contains(err.Error(), "key_encryption_key") {
		t.Errorf("sealed record key without the KEK: %v", err)
	}

	// Rotation: a new current key, the old one as previous.
	s2 := sealedService(t, storage, sealer(t, kek(t), k1))
	if r, err := s2.RecipientKey(ctx, newDoc.Key.Verkey); err != nil || !bytes.Equal(r.Key.Seed(), newDoc.Key.Seed) {
		t.Fatalf("record key after rotation: %v", err)
	}
	if _, err := s2.OrgKey(ctx, testOrg.ID); err != nil {
		t.Fatalf("org key after rotation: %v", err)
	}
}
