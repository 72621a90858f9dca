package did

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"
)

// TestMultikeyP256RoundTrip: a P-256 key encoded compressed decodes to the
// same key, whichever the parity of its y (a wrong parity bit would decode
// to the point's mirror image, another key).
func TestMultikeyP256RoundTrip(t *testing.T) {
	parities := map[byte]bool{}
	for i := 0; i < 32 || len(parities) < 2; i++ {
		priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		mb, err := EncodeMultikey(&priv.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseMultikey(mb)
		if err != nil {
			t.Fatalf("%s: %v", mb, err)
		}
		if !priv.PublicKey.Equal(got) {
			t.Fatalf("%s decoded to another key", mb)
		}
		point, _ := priv.PublicKey.Bytes()
		parities[point[len(point)-1]&1] = true
	}
}
