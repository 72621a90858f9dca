package didcomm

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/nacl/box"

	"github.com/proofgate/proofgate/internal/didkey"
)

// An authcrypt envelope whose claimed sender is a small-order Ed25519 point
// (32 zero bytes = base58 "111...1", the point y=0 of order 4) is refused:
// X25519 with a low-order peer gives the all-zero secret, which nacl/box
// (legacy curve25519.ScalarMult) does not reject, unlike libsodium's
// crypto_box_open, so anyone could make it; nobody holds that key.
func TestAuthcryptFromSmallOrderKeyRefused(t *testing.T) {
	ours, ourKeys := newKeys(t, 1)
	const fakeSender = "11111111111111111111111111111111" // 32 zero bytes
	senderX := make([]byte, 32)                           // its Montgomery u: (1+y)/(1-y) = 1, a low-order point
	senderX[0] = 1
	recPub, _ := ParseKey(ourKeys[0])
	recX, _ := didkey.X25519PublicKey(recPub)

	// The attacker: any random scalar, no private key of fakeSender.
	var anyScalar [32]byte
	rand.Read(anyScalar[:])
	var shared [32]byte
	box.Precompute(&shared, (*[32]byte)(senderX), &anyScalar) // = HSalsa20(0), same as the receiver's

	cek := make([]byte, 32)
	rand.Read(cek)
	var nonce [24]byte
	rand.Read(nonce[:])
	ek := box.SealAfterPrecomputation(nil, cek, &nonce, &shared)
	ss, _ := box.SealAnonymous(nil, []byte(fakeSender), (*[32]byte)(recX), rand.Reader)
	s, iv := encodeB64(ss), encodeB64(nonce[:])
	hdr := protectedHeader{Enc: EncXC20PIETF, Typ: TypJWM, Alg: AlgAuthcrypt, Recipients: []recipient{{
		EncryptedKey: encodeB64(ek),
		Header:       recipientHeader{KID: ourKeys[0], Sender: &s, IV: &iv},
	}}}
	raw, _ := json.Marshal(hdr)
	protected := encodeB64(raw)
	aead, _ := chacha20poly1305.New(cek)
	civ := make([]byte, 12)
	sealed := aead.Seal(nil, civ, []byte(`{"forged":true}`), []byte(protected))
	cut := len(sealed) - 16
	env, _ := json.Marshal(envelope{Protected: protected, IV: encodeB64(civ),
		Ciphertext: encodeB64(sealed[:cut]), Tag: encodeB64(sealed[cut:])})

	un, err := Unpack(env, ours.find)
	if err == nil {
		t.Fatalf("forged authcrypt accepted: sender %q, message %s", un.SenderVerkey, un.Message)
	}
}

// The protected header is measured before it is decoded: a 1 MiB body
// (the HTTP default) of recipients "[0,0,0,…]" used to make Unpack
// allocate 136 MiB before the recipients cap refused it.
func TestProtectedHeaderBoundedBeforeDecoding(t *testing.T) {
	ours, _ := newKeys(t, 1)
	const body = 1 << 20
	n := (body*3/4 - 100) / 2
	raw := `{"enc":"xchacha20poly1305_ietf","typ":"JWM/1.0","alg":"Anoncrypt","recipients":[0` + strings.Repeat(",0", n-1) + `]}`
	env, _ := json.Marshal(envelope{Protected: encodeB64([]byte(raw)), IV: encodeB64(make([]byte, 12)),
		Ciphertext: "AA", Tag: encodeB64(make([]byte, 16))})
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Unpack(env, ours.find)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("envelope %d bytes, %d recipients, err=%v, allocated %d MiB", len(env), n, err, alloc>>20)
	if alloc > 8*uint64(len(env)) {
		t.Fatalf("Unpack allocated %d MiB (%.0fx the envelope) for an envelope it rejects for its recipient count", alloc>>20, float64(alloc)/float64(len(env)))
	}
}

var _ = ed25519.PublicKeySize
