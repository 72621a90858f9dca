package didkey

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"filippo.io/edwards25519"
	"github.com/mr-tron/base58"
)

// specVectors are from the did:key method's published test vectors
// (w3c-ccg/did-method-key test-vectors/ed25519-x25519.json): Ed25519
// seed → DID, base58 verkey, and the derived X25519 key pair.
var specVectors = []struct {
	seed, did, verkey, xPub, xPriv string
}{
	{"0000000000000000000000000000000000000000000000000000000000000000",
		"did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp",
		"4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS",
		"7By6kV2t2d188odEM4ExAve1UithKT6dLva4dwsDT3ak",
		"6QN8DfuN9hjgHgPvLXqgzqYE3jRRGRrmJQZkd5tL8paR"},
	{"0000000000000000000000000000000000000000000000000000000000000001",
		"did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG",
		"6ASf5EcmmEHTgDJ4X4ZT5vT6iHVJBXPg5AN5YoTCpGWt",
		"FcoNC5NqP9CePWbhfz95iHaEsCjGkZUioK9Ck7Qiw286",
		"HBTcN2MrXNRj9xF9oi8QqYyuEPv3JLLjQKuEgW9oxVKP"},
	{"0000000000000000000000000000000000000000000000000000000000000002",
		"did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf",
		"8pM1DN3RiT8vbom5u1sNryaNT1nyL8CTTW3b5PwWXRBH",
		"A5fe37PAxhX5WNKngBpGHhC1KpNE7nwbK9oX2tqwxYxU",
		"ACa4PPJ1LnPNq1iwS33V3Akh7WtnC71WkKFZ9ccM6sX2"},
	{"0000000000000000000000000000000000000000000000000000000000000003",
		"did:key:z6MkvqoYXQfDDJRv8L4wKzxYeuKyVZBfi9Qo6Ro8MiLH3kDQ",
		"HPYVwAQmskwT1qEEeRzhoomyfyupJGASQQtCXSNG8XS2",
		"7ocvdvQinfqtyQ3Dh9aA7ggoVCQkmfaoueZazHETDv3B",
		"FZrzd1osCnbK6y6MJzMBW1RcVfL524sNKhSbqRwMuwHT"},
	{"0000000000000000000000000000000000000000000000000000000000000004",
		"did:key:z6MkwW6aqMnjgrhJXFUko3NnZPGzVpkNzhYK7yEhnsibmLwL",
		"J3qYF7YJMKCqQke47UQwiHizgFUXapHxRxKmxbkar89x",
		"FbQtKTG6FjWSeYZyowWYv2KBcCbwmHqH6HUuxdJ4xkwP",
		"8Zybi2bqQ8YB4uPm3iy2rkDCmbB4wkG2Y2ig5YAkgNdg"},
}

func TestSpecVectors(t *testing.T) {
	for _, v := range specVectors {
		t.Run(v.did, func(t *testing.T) {
			seed, _ := hex.DecodeString(v.seed)
			priv := ed25519.NewKeyFromSeed(seed)
			pub := priv.Public().(ed25519.PublicKey)
			if got := Encode(pub); got != v.did {
				t.Errorf("Encode = %s, want %s", got, v.did)
			}
			if got := Verkey(pub); got != v.verkey {
				t.Errorf("Verkey = %s, want %s", got, v.verkey)
			}
			back, err := Decode(v.did)
			if err != nil || !bytes.Equal(back, pub) {
				t.Errorf("Decode = %x, %v", back, err)
			}
			back, err = ParseVerkey(v.verkey)
			if err != nil || !bytes.Equal(back, pub) {
				t.Errorf("ParseVerkey = %x, %v", back, err)
			}
			xpub, err := X25519PublicKey(pub)
			if err != nil || base58.Encode(xpub) != v.xPub {
				t.Errorf("X25519PublicKey = %s, %v, want %s", base58.Encode(xpub), err, v.xPub)
			}
			if got := base58.Encode(X25519PrivateKey(priv)); got != v.xPriv {
				t.Errorf("X25519PrivateKey = %s, want %s", got, v.xPriv)
			}
		})
	}
}

// TestRFC8032Key checks the public key of RFC 8032 §7.1 TEST 1, whose
// did:key several independent implementations publish.
func TestRFC8032Key(t *testing.T) {
	seed, _ := hex.DecodeString("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	if hex.EncodeToString(pub) != "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a" {
		t.Fatalf("RFC 8032 public key %x", pub)
	}
	if got, want := Encode(pub), "did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw"; got != want {
		t.Fatalf("Encode = %s, want %s", got, want)
	}
}

func TestDecodeRejects(t *testing.T) {
	pub, _, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	good := Encode(pub)
	fp := Fingerprint(pub)
	if k, err := Decode(good + "#" + fp); err != nil || !bytes.Equal(k, pub) {
		t.Fatalf("DID URL with own fragment: %v", err)
	}
	// A secp256k1 did:key (multicodec 0xe7) from the did:key spec.
	secp := "did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme"
	notOnCurve := Prefix + "z" + base58.Encode(append([]byte{0xed, 0x01}, offCurve(t)...))
	for _, bad := range []string{
		"", "did:key:", "did:key:z", fp, "did:web:example.com",
		"did:key:" + fp[1:],                   // no multibase prefix
		"did:key:m" + fp[1:],                  // other multibase
		good + "#other",                       // foreign fragment
		good + "1",                            // trailing junk
		good[:len(good)-1],                    // truncated
		"did:key:z" + strings.Repeat("1", 80), // too long
		secp, notOnCurve,
	} {
		if _, err := Decode(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Decode(%q) = %v, want ErrInvalid", bad, err)
		}
	}
	for _, bad := range []string{"", "0OIl", base58.Encode(pub[:31]), base58.Encode(append(pub, 0)), strings.Repeat("z", 100)} {
		if _, err := ParseVerkey(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseVerkey(%q) = %v, want ErrInvalid", bad, err)
		}
	}
	// The points of small order (libsodium's blocklist): nobody holds
	// their keys, and an X25519 secret with one is zero.
	for _, h := range []string{
		"0100000000000000000000000000000000000000000000000000000000000000", // the identity
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // order 2
		"0000000000000000000000000000000000000000000000000000000000000000", // order 4
		"0000000000000000000000000000000000000000000000000000000000000080",
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", // order 8
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
		"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
		"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
	} {
		b, _ := hex.DecodeString(h)
		if _, err := ParseVerkey(base58.Encode(b)); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseVerkey(small order %s) = %v, want ErrInvalid", h, err)
		}
		if _, err := Decode(Prefix + "z" + base58.Encode(append([]byte{0xed, 0x01}, b...))); !errors.Is(err, ErrInvalid) {
			t.Errorf("Decode(small order %s) = %v, want ErrInvalid", h, err)
		}
	}
}

// offCurve returns 32 bytes that do not decode to a curve point (about
// half of all y coordinates have no x).
func offCurve(t *testing.T) []byte {
	for i := range 256 {
		b := make([]byte, 32)
		b[0] = byte(i)
		if _, err := new(edwards25519.Point).SetBytes(b); err != nil {
			return b
		}
	}
	t.Fatal("no off-curve encoding found")
	return nil
}

func TestGenerateIsFresh(t *testing.T) {
	a, _, _ := Generate()
	b, _, _ := Generate()
	if bytes.Equal(a, b) {
		t.Fatal("two generated keys are equal")
	}
	if !strings.HasPrefix(Encode(a), "did:key:z6Mk") {
		t.Fatalf("Ed25519 did:key must start z6Mk: %s", Encode(a))
	}
}
