package keyseal

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func randomKey(t *testing.T) []byte {
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealOpenRotate(t *testing.T) {
	old, cur := randomKey(t), randomKey(t)
	s1, _ := New(old)
	seed := []byte("0123456789abcdef0123456789abcdef")
	sealed, err := s1.Seal(seed, "verkey-1")
	if err != nil || !IsSealed(sealed) || strings.Contains(sealed, string(seed)) {
		t.Fatalf("Seal: %q %v", sealed, err)
	}
	if got, err := s1.Open(sealed, "verkey-1"); err != nil || !bytes.Equal(got, seed) {
		t.Fatalf("Open: %v", err)
	}
	if _, err := s1.Open(sealed, "verkey-2"); err == nil {
		t.Error("opened under another context")
	}
	// Flip one bit of the last byte (the tag's): a change of base64
	// characters alone may only touch the unused low bits of the last one,
	// which decoding ignores.
	dot := strings.LastIndexByte(sealed, '.')
	raw, err := base64.RawURLEncoding.DecodeString(sealed[dot+1:])
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-1] ^= 1
	tampered := sealed[:dot+1] + base64.RawURLEncoding.EncodeToString(raw)
	if _, err := s1.Open(tampered, "verkey-1"); err == nil {
		t.Error("opened an altered value")
	}

	// Rotation: the new key seals, the old one still opens.
	s2, _ := New(cur, old)
	if got, err := s2.Open(sealed, "verkey-1"); err != nil || !bytes.Equal(got, seed) {
		t.Fatalf("old value after rotation: %v", err)
	}
	if !s2.Stale(sealed) {
		t.Error("a value of the previous key is not stale")
	}
	resealed, _ := s2.Seal(seed, "verkey-1")
	if s2.Stale(resealed) {
		t.Error("a fresh value is stale")
	}
	// Without the old key it is refused, by name.
	s3, _ := New(cur)
	if _, err := s3.Open(sealed, "verkey-1"); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("without the old key: %v", err)
	}
}

func TestParseKey(t *testing.T) {
	k := randomKey(t)
	for _, s := range []string{hex.EncodeToString(k), base64.StdEncoding.EncodeToString(k) + "\n", base64.RawURLEncoding.EncodeToString(k)} {
		got, err := ParseKey(s)
		if err != nil || !bytes.Equal(got, k) {
			t.Errorf("ParseKey(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "short", hex.EncodeToString(k[:16]), "{env.KEK}"} {
		if _, err := ParseKey(s); err == nil {
			t.Errorf("ParseKey(%q) accepted", s)
		}
	}
}
