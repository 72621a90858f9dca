package didcomm

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/didkey"
)

// keyring is a test wallet's keys by verkey.
type keyring map[string]ed25519.PrivateKey

func newKeys(t testing.TB, n int) (keyring, []string) {
	t.Helper()
	k := keyring{}
	var verkeys []string
	for range n {
		pub, priv, err := didkey.Generate()
		if err != nil {
			t.Fatal(err)
		}
		vk := didkey.Verkey(pub)
		k[vk] = priv
		verkeys = append(verkeys, vk)
	}
	return k, verkeys
}

func (k keyring) find(kid string) (ed25519.PrivateKey, error) {
	if p, ok := k[kid]; ok {
		return p, nil
	}
	return nil, ErrUnknownKey
}

func TestPackUnpackRoundTrip(t *testing.T) {
	ours, ourKeys := newKeys(t, 2)
	_, otherKeys := newKeys(t, 2)
	_, senderPriv, _ := didkey.Generate()
	senderVerkey := didkey.Verkey(senderPriv.Public().(ed25519.PublicKey))
	msg := []byte(`{"@type":"https://didcomm.org/trust_ping/1.0/ping","@id":"1","comment":"héllo"}`)

	tests := []struct {
		name       string
		recipients []string
		sender     ed25519.PrivateKey
		wantKey    string
		wantSender string
	}{
		{"authcrypt one recipient", ourKeys[:1], senderPriv, ourKeys[0], senderVerkey},
		{"anoncrypt one recipient", ourKeys[:1], nil, ourKeys[0], ""},
		{"authcrypt ours after others", []string{otherKeys[0], otherKeys[1], ourKeys[1]}, senderPriv, ourKeys[1], senderVerkey},
		{"anoncrypt did:key recipient", []string{didkey.Encode(ours[ourKeys[0]].Public().(ed25519.PublicKey))}, nil, ourKeys[0], ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := Pack(msg, tt.recipients, tt.sender)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(env, []byte("=")) {
				t.Errorf("envelope has base64 padding: %s", env)
			}
			un, err := Unpack(env, ours.find)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(un.Message, msg) || un.RecipientVerkey != tt.wantKey || un.SenderVerkey != tt.wantSender {
				t.Fatalf("Unpack = %q to %s from %q", un.Message, un.RecipientVerkey, un.SenderVerkey)
			}
			// The header says what RFC 0019 peers expect.
			hdr := header(t, env)
			wantAlg := AlgAnoncrypt
			if tt.sender != nil {
				wantAlg = AlgAuthcrypt
			}
			if hdr.Enc != EncXC20PIETF || hdr.Typ != TypJWM || hdr.Alg != wantAlg || len(hdr.Recipients) != len(tt.recipients) {
				t.Fatalf("header %+v", hdr)
			}
		})
	}
}

func header(t *testing.T, env []byte) protectedHeader {
	t.Helper()
	var e envelope
	if err := json.Unmarshal(env, &e); err != nil {
		t.Fatal(err)
	}
	raw, err := decodeB64(e.Protected)
	if err != nil {
		t.Fatal(err)
	}
	var h protectedHeader
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestUnpackCredo05 decrypts the envelopes of Credo's own interop test
// (openwallet-foundation/credo-ts, packages/askar/tests/
// askar-didcomm-credo-05.test.ts): an authcrypt and an anoncrypt message
// packed by Credo 0.5 (Askar), unpadded base64url, with the recipient's
// Ed25519 private key given in hex.
func TestUnpackCredo05(t *testing.T) {
	seed, _ := hex.DecodeString("226e10dad834f65c4e2b4bed1c29db06908f225eaa27ca7ebe2b74258fd6f1eb")
	priv := ed25519.NewKeyFromSeed(seed)
	kid := "BTfNVH1CK5G7oGFdpnAER3Zi4swrksbuEk1f3WMUxqhf"
	if got := didkey.Verkey(priv.Public().(ed25519.PublicKey)); got != kid {
		t.Fatalf("recipient verkey %s, want %s", got, kid)
	}
	senderPub, _ := base64.RawURLEncoding.DecodeString("R0s2NusuG1Yth0izz5kNzd1_-vLb4m5sUoSUBVDOOcY")
	find := keyring{kid: priv}.find

	tests := []struct {
		name, env, wantType, wantSender string
	}{
		{
			name:       "authcrypt",
			env:        `{"protected":"eyJlbmMiOiJ4Y2hhY2hhMjBwb2x5MTMwNV9pZXRmIiwidHlwIjoiSldNLzEuMCIsImFsZyI6IkF1dGhjcnlwdCIsInJlY2lwaWVudHMiOlt7ImVuY3J5cHRlZF9rZXkiOiJfWm5YYkdYLVFwTG8xVEllY1BnbDFFZUhiZEpyMUMteWNvc25fWWVDZm9BeUlzUVk4UmFBTG1IMFZlcEhQcnMwIiwiaGVhZGVyIjp7ImtpZCI6IkJUZk5WSDFDSzVHN29HRmRwbkFFUjNaaTRzd3Jrc2J1RWsxZjNXTVV4cWhmIiwic2VuZGVyIjoiWjBBZXZVYkRsand4YzJsdVhpYWI5M1Z2OUw1YzBGdm4tV3ljaUpHc0RYcWlobVdtTEg1R1JtQjVaN2FTRVNfQXFsMDByUllQMDRkaWg1YjVSTG9ydEg1N2JUSER3QnhGallZTElMSE9ValI4NUZJeHdsSnNhM1NKUXY0IiwiaXYiOiJjYjJlaDdYRHdFSVU0WFNrWDduOFl6cVVNSXRMUWlUbyJ9fV19","ciphertext":"ZN9MbaJYFEIcIsjS7RJL0-J8QvuJCRgfUyunQPlN2FTa88HfCFyJfwCWeN1RbZs","iv":"t2rSkBzjq8uu7-ji","tag":"bOflaQwnOsUngIeoh9adww"}`,
			wantType:   "https://didcomm.org/connections/1.0",
			wantSender: didkey.Verkey(senderPub),
		},
		{
			name:     "anoncrypt",
			env:      `{"protected":"eyJlbmMiOiJ4Y2hhY2hhMjBwb2x5MTMwNV9pZXRmIiwidHlwIjoiSldNLzEuMCIsImFsZyI6IkFub25jcnlwdCIsInJlY2lwaWVudHMiOlt7ImVuY3J5cHRlZF9rZXkiOiJZME9uTUNGZ2VIQUpEV1Y4NkVhWEpQWXN5RUVlWXVfZVNQX2ltX3VDMUFkYkpRalI4RkRTUFZxd1RrUU5GcDc1X2RwemZpX2pqcGlUVTZhQ2VobThTdzMwS3B5bmJHemNROWdsUnFxY1NnQSIsImhlYWRlciI6eyJraWQiOiJCVGZOVkgxQ0s1RzdvR0ZkcG5BRVIzWmk0c3dya3NidUVrMWYzV01VeHFoZiJ9fV19","ciphertext":"GTzzcCSkcofiC2dH2LRChTxikb9Nn8ZAesGY6iJWzeLNQea5SgEqM0zw-cwVSbFlPSq5_w","iv":"EF6uHk2lUSoayxV7","tag":"op_xOrKdtJVhCa0u1hBJ7A"}`,
			wantType: "https://didcomm.org/another-protocol/1.0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			un, err := Unpack([]byte(tt.env), find)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(un.Message, &m); err != nil || len(m) != 1 || m["@type"] != tt.wantType {
				t.Fatalf("message %s (%v)", un.Message, err)
			}
			if un.RecipientVerkey != kid || un.SenderVerkey != tt.wantSender {
				t.Fatalf("recipient %s sender %q, want %s %q", un.RecipientVerkey, un.SenderVerkey, kid, tt.wantSender)
			}
		})
	}
}

// TestUnpackSiriusFixture decrypts the fixture of Sirius-social/
// sirius-sdk-python tests/test_encryption.py (test_fixture, commit
// d024ac3a): an authcrypt envelope made with libsodium (pysodium) from the
// seeds "000000000000000000000000000SEED1" (recipient) and "...SEED2"
// (sender), with padded base64url and a header JSON with spaces.
func TestUnpackSiriusFixture(t *testing.T) {
	recipient := ed25519.NewKeyFromSeed([]byte("000000000000000000000000000SEED1"))
	sender := ed25519.NewKeyFromSeed([]byte("000000000000000000000000000SEED2"))
	env := `{"protected": "eyJlbmMiOiAieGNoYWNoYTIwcG9seTEzMDVfaWV0ZiIsICJ0eXAiOiAiSldNLzEuMCIsICJhbGciOiAiQXV0aGNyeXB0IiwgInJlY2lwaWVudHMiOiBbeyJlbmNyeXB0ZWRfa2V5IjogInBKcW1xQS1IVWR6WTNWcFFTb2dySGx4WTgyRnc3Tl84YTFCSmtHU2VMT014VUlwT0RQWTZsMVVsaVVvOXFwS0giLCAiaGVhZGVyIjogeyJraWQiOiAiM1ZxZ2ZUcDZRNFZlRjhLWTdlVHVXRFZBWmFmRDJrVmNpb0R2NzZLR0xtZ0QiLCAic2VuZGVyIjogIjRlYzhBeFRHcWtxamd5NHlVdDF2a0poeWlYZlNUUHo1bTRKQjk1cGZSMG1JVW9KajAwWmswNmUyUEVDdUxJYmRDck8xeTM5LUhGTG5NdW5YQVJZWk5rZ2pyYV8wYTBQODJpbVdNcWNHc1FqaFd0QUhOcUw1OGNkUUYwYz0iLCAiaXYiOiAiVU1PM2o1ZHZwQnFMb2Rvd3V0c244WEMzTkVqSWJLb2oifX1dfQ==", "iv": "MchkHF2M-4hneeUJ", "ciphertext": "UgcdsV-0rIkP25eJuRSROOuqiTEXp4NToKjPMmqqtJs-Ih1b5t3EEbrrHxeSfPsHtlO6J4OqA1jc5uuD3aNssUyLug==", "tag": "sQD8qgJoTrRoyQKPeCSBlQ=="}`
	vk := didkey.Verkey(recipient.Public().(ed25519.PublicKey))
	un, err := Unpack([]byte(env), keyring{vk: recipient}.find)
	if err != nil {
		t.Fatal(err)
	}
	// Python's json.dumps escapes non-ASCII.
	want := `{"content": "Test encryption \u0441\u0442\u0440\u043e\u043a\u0430"}`
	if string(un.Message) != want {
		t.Fatalf("message %q, want %q", un.Message, want)
	}
	if un.SenderVerkey != didkey.Verkey(sender.Public().(ed25519.PublicKey)) || un.RecipientVerkey != vk {
		t.Fatalf("sender %s recipient %s", un.SenderVerkey, un.RecipientVerkey)
	}
}

// mutate returns env with one member of the outer JSON replaced.
func mutate(t *testing.T, env []byte, fn func(e *envelope)) []byte {
	t.Helper()
	var e envelope
	if err := json.Unmarshal(env, &e); err != nil {
		t.Fatal(err)
	}
	fn(&e)
	b, _ := json.Marshal(e)
	return b
}

// flip changes one base64url character (not the last, whose low bits may
// be ignored by the decoder).
func flip(s string) string {
	b := []byte(s)
	if b[0] == 'A' {
		b[0] = 'B'
	} else {
		b[0] = 'A'
	}
	return string(b)
}

func repack(t *testing.T, hdr protectedHeader) string {
	t.Helper()
	b, _ := json.Marshal(hdr)
	return encodeB64(b)
}

func TestUnpackRejects(t *testing.T) {
	ours, ourKeys := newKeys(t, 1)
	_, otherKeys := newKeys(t, 1)
	_, senderPriv, _ := didkey.Generate()
	msg := []byte(`{"@type":"x"}`)
	auth, err := Pack(msg, ourKeys, senderPriv)
	if err != nil {
		t.Fatal(err)
	}
	anon, err := Pack(msg, ourKeys, nil)
	if err != nil {
		t.Fatal(err)
	}
	notOurs, _ := Pack(msg, otherKeys, senderPriv)
	// Encrypted to another key but naming ours: the key opens nothing.
	misnamed := mutate(t, notOurs, func(e *envelope) {
		raw, _ := decodeB64(e.Protected)
		var h protectedHeader
		_ = json.Unmarshal(raw, &h)
		h.Recipients[0].Header.KID = ourKeys[0]
		e.Protected = repack(t, h)
	})
	authHdr := header(t, auth)

	tests := []struct {
		name string
		env  []byte
		want error
	}{
		{"garbage", []byte("garbage"), ErrMalformed},
		{"empty", nil, ErrMalformed},
		{"JSON array", []byte(`[1,2]`), ErrMalformed},
		{"missing tag", mutate(t, auth, func(e *envelope) { e.Tag = "" }), ErrMalformed},
		{"protected not base64", mutate(t, auth, func(e *envelope) { e.Protected = "!!!" }), ErrMalformed},
		{"iv wrong size", mutate(t, auth, func(e *envelope) { e.IV = encodeB64(make([]byte, 24)) }), ErrMalformed},
		{"unsupported enc", mutate(t, auth, func(e *envelope) {
			h := authHdr
			h.Enc = "A256GCM"
			e.Protected = repack(t, h)
		}), ErrMalformed},
		{"unsupported alg", mutate(t, auth, func(e *envelope) {
			h := authHdr
			h.Alg = "ECDH-1PU"
			e.Protected = repack(t, h)
		}), ErrMalformed},
		{"no recipients", mutate(t, auth, func(e *envelope) {
			h := authHdr
			h.Recipients = nil
			e.Protected = repack(t, h)
		}), ErrMalformed},
		{"too many recipients", mutate(t, auth, func(e *envelope) {
			h := authHdr
			for range MaxRecipients {
				h.Recipients = append(h.Recipients, h.Recipients[0])
			}
			e.Protected = repack(t, h)
		}), ErrMalformed},
		{"kid not a verkey", mutate(t, auth, func(e *envelope) {
			h := header(t, auth)
			h.Recipients[0].Header.KID = "did:example:123"
			e.Protected = repack(t, h)
		}), ErrMalformed},
		{"authcrypt header without sender", mutate(t, auth, func(e *envelope) {
			h := header(t, auth)
			h.Recipients[0].Header.Sender = nil
			e.Protected = repack(t, h)
		}), ErrMalformed},
		{"anoncrypt relabelled authcrypt", mutate(t, anon, func(e *envelope) {
			h := header(t, anon)
			h.Alg = AlgAuthcrypt
			e.Protected = repack(t, h)
		}), ErrMalformed},
		{"authcrypt relabelled anoncrypt", mutate(t, auth, func(e *envelope) {
			h := header(t, auth)
			h.Alg = AlgAnoncrypt
			e.Protected = repack(t, h)
		}), ErrMalformed},
		{"not for us", notOurs, ErrNotForUs},
		{"tampered ciphertext", mutate(t, auth, func(e *envelope) { e.Ciphertext = flip(e.Ciphertext) }), ErrDecrypt},
		{"tampered tag", mutate(t, auth, func(e *envelope) { e.Tag = flip(e.Tag) }), ErrDecrypt},
		{"tampered iv", mutate(t, anon, func(e *envelope) { e.IV = flip(e.IV) }), ErrDecrypt},
		{"tampered encrypted_key", mutate(t, auth, func(e *envelope) {
			h := header(t, auth)
			h.Recipients[0].EncryptedKey = flip(h.Recipients[0].EncryptedKey)
			e.Protected = repack(t, h)
		}), ErrDecrypt},
		{"protected re-encoded (AAD changes)", mutate(t, anon, func(e *envelope) {
			raw, _ := decodeB64(e.Protected)
			e.Protected = encodeB64(append([]byte(" "), raw...)) // same header
		}), ErrDecrypt},
		{"encrypted to another key", misnamed, ErrDecrypt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			un, err := Unpack(tt.env, ours.find)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Unpack = %q, %v; want %v", un.Message, err, tt.want)
			}
		})
	}
}

func TestUnpackPaddingAndFindKeyErrors(t *testing.T) {
	ours, ourKeys := newKeys(t, 1)
	_, senderPriv, _ := didkey.Generate()
	msg := []byte(`{"@type":"x"}`)
	env, _ := Pack(msg, ourKeys, senderPriv)

	// Padded base64url (aries-framework-go, libindy) decodes too; the
	// protected member stays as sent because it is the AAD, so only the
	// other members are re-padded here.
	padded := mutate(t, env, func(e *envelope) {
		for _, f := range []*string{&e.IV, &e.Ciphertext, &e.Tag} {
			raw, _ := decodeB64(*f)
			*f = base64.URLEncoding.EncodeToString(raw)
		}
	})
	if !bytes.Contains(padded, []byte("=")) {
		t.Fatal("test envelope has no padding")
	}
	if un, err := Unpack(padded, ours.find); err != nil || !bytes.Equal(un.Message, msg) {
		t.Fatalf("padded: %q, %v", un.Message, err)
	}

	boom := errors.New("storage down")
	if _, err := Unpack(env, func(string) (ed25519.PrivateKey, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("findKey error: %v", err)
	}
	if _, err := Unpack(env, func(string) (ed25519.PrivateKey, error) { return nil, nil }); !errors.Is(err, ErrNotForUs) {
		t.Fatalf("nil key: %v", err)
	}
	_, wrong, _ := didkey.Generate()
	if _, err := Unpack(env, func(string) (ed25519.PrivateKey, error) { return wrong, nil }); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("mismatched key: %v", err)
	}
}

func TestPackRejects(t *testing.T) {
	_, keys := newKeys(t, 1)
	tests := []struct {
		name       string
		recipients []string
		sender     ed25519.PrivateKey
	}{
		{"no recipients", nil, nil},
		{"bad recipient", []string{"nope"}, nil},
		{"bad sender", keys, ed25519.PrivateKey{1, 2, 3}},
	}
	for _, tt := range tests {
		if _, err := Pack([]byte("{}"), tt.recipients, tt.sender); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

func FuzzUnpack(f *testing.F) {
	ours, ourKeys := newKeys(f, 1)
	_, senderPriv, _ := didkey.Generate()
	auth, _ := Pack([]byte(`{"a":1}`), ourKeys, senderPriv)
	anon, _ := Pack([]byte(`{"a":1}`), ourKeys, nil)
	f.Add(auth)
	f.Add(anon)
	f.Add([]byte(`{"protected":"e30","iv":"AAAAAAAAAAAAAAAA","ciphertext":"AA","tag":"AAAAAAAAAAAAAAAAAAAAAA"}`))
	f.Add([]byte("null"))
	f.Fuzz(func(t *testing.T, data []byte) {
		un, err := Unpack(data, ours.find)
		if err == nil && un.RecipientVerkey != ourKeys[0] {
			t.Fatalf("unpacked for %q", un.RecipientVerkey)
		}
	})
}

func benchMessage() []byte {
	msg := bytes.Repeat([]byte("a"), 4096-len(`{"x":""}`))
	return []byte(`{"x":"` + string(msg) + `"}`)
}

func BenchmarkPackAuthcrypt4KiB(b *testing.B) {
	_, keys := newKeys(b, 1)
	_, senderPriv, _ := didkey.Generate()
	msg := benchMessage()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if _, err := Pack(msg, keys, senderPriv); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnpackAuthcrypt4KiB(b *testing.B) {
	ours, keys := newKeys(b, 1)
	_, senderPriv, _ := didkey.Generate()
	msg := benchMessage()
	env, err := Pack(msg, keys, senderPriv)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if _, err := Unpack(env, ours.find); err != nil {
			b.Fatal(err)
		}
	}
}
