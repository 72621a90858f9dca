package jwtvc

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/proofgate/proofgate/internal/did"
)

// Credo's fixtures (testdata/credo-jwt/SOURCES.md): an EdDSA did:key JWT VP
// embedding an ES256 did:jwk JWT VC.
func TestCredoFixtures(t *testing.T) {
	raw, err := os.ReadFile("../../../testdata/credo-jwt/es256-did-jwk-vc-in-eddsa-did-key-vp.jwt")
	if err != nil {
		t.Fatal(err)
	}
	vpJWT := strings.TrimSpace(string(raw))
	keys := did.NewResolver(did.Options{})
	ctx := context.Background()
	vp, err := Verify(ctx, keys, vpJWT, did.Authentication)
	if err != nil {
		t.Fatal(err)
	}
	if vp.Alg != "EdDSA" || vp.Claims.Nonce != "daf942ad-816f-45ee-a9fc-facd08e5abca" || vp.Claims.Issuer != vp.Controller {
		t.Fatalf("VP %+v", vp)
	}
	creds, _ := vp.Claims.VP["verifiableCredential"].([]any)
	vcJWT, _ := creds[0].(string)
	vc, err := Verify(ctx, keys, vcJWT, did.AssertionMethod)
	if err != nil {
		t.Fatal(err)
	}
	if vc.Alg != "ES256" || vc.Claims.Subject != vp.Claims.Issuer || !strings.HasPrefix(vc.Controller, "did:jwk:") {
		t.Fatalf("VC %+v", vc)
	}
	// One character of the payload changed: the signature fails.
	parts := strings.Split(vcJWT, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	tampered := strings.Replace(string(payload), "PlugFest 2", "PlugFest 3", 1)
	bad := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(tampered)) + "." + parts[2]
	if _, err := Verify(ctx, keys, bad, did.AssertionMethod); !errors.Is(err, ErrSignature) {
		t.Fatalf("tampered VC: %v", err)
	}
}

func TestSignVerifyAndRefusals(t *testing.T) {
	_, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	edDID, _ := did.KeyDID(edPriv.Public())
	jwkDID, _ := did.JWKDID(&p256.PublicKey)
	keys := did.NewResolver(did.Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		key any
		kid string
		iss string
	}{
		{edPriv, did.KeyMethodID(edDID), edDID},
		{p256, "#0", jwkDID},
	} {
		tok, err := Sign(tc.key, tc.kid, Claims{Issuer: tc.iss, Nonce: "n", VP: map[string]any{"type": []any{"VerifiablePresentation"}}})
		if err != nil {
			t.Fatal(err)
		}
		v, err := Verify(ctx, keys, tok, did.Authentication)
		if err != nil || v.Claims.Nonce != "n" || v.Controller != tc.iss {
			t.Fatalf("%s: %+v %v", tc.iss, v, err)
		}
	}
	// HS256 (a MAC: anyone with the "key" could forge) is refused.
	hs, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte("0123456789abcdef0123456789abcdef")}, (&jose.SignerOptions{}).WithHeader("kid", did.KeyMethodID(edDID)))
	tok, _ := jwt.Signed(hs).Claims(Claims{Issuer: edDID}).Serialize()
	if _, err := Verify(ctx, keys, tok, did.Authentication); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("HS256: %v", err)
	}
	// ES256 header over an Ed25519 key.
	es, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: p256}, (&jose.SignerOptions{}).WithHeader("kid", did.KeyMethodID(edDID)))
	tok, _ = jwt.Signed(es).Claims(Claims{Issuer: edDID}).Serialize()
	if _, err := Verify(ctx, keys, tok, did.Authentication); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("alg/key mismatch: %v", err)
	}
	// Signed by another key than kid names.
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	tok, _ = Sign(other, did.KeyMethodID(edDID), Claims{Issuer: edDID})
	if _, err := Verify(ctx, keys, tok, did.Authentication); !errors.Is(err, ErrSignature) {
		t.Fatalf("wrong key: %v", err)
	}
	// No kid and an issuer that is not did:key/did:jwk.
	tok, _ = Sign(edPriv, "", Claims{Issuer: "https://issuer.example"})
	if _, err := Verify(ctx, keys, tok, did.Authentication); !errors.Is(err, ErrMalformed) {
		t.Fatalf("no kid: %v", err)
	}
	if _, err := Verify(ctx, keys, "not.a.jwt", did.Authentication); !errors.Is(err, ErrMalformed) {
		t.Fatalf("garbage: %v", err)
	}
}
