package jwt

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

func TestStaticKeyFiles(t *testing.T) {
	rs := newRSAKey(t, "rsa-1", 0)
	ec := newECKey(t, "ec-1")
	dir := t.TempDir()
	rsaDER, _ := x509.MarshalPKIXPublicKey(rs.priv.Public())
	pemFile := writeFile(t, dir, "rsa.pem", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: rsaDER}))
	jwk, _ := jsonKey(ec.public())
	jwkFile := writeFile(t, dir, "ec.jwk", []byte(jwk))

	p := provision(t, &Provider{
		KeyFiles:   []string{pemFile, jwkFile},
		Issuer:     testIssuer,
		Algorithms: []string{"RS256", "ES256"},
	})
	for _, k := range []testKey{rs, ec} {
		if _, err := p.Authenticate(bearer(k.sign(t, claimsFor(nil)))); err != nil {
			t.Errorf("%s: %v", k.kid, err)
		}
	}
	// A PEM key has no kid; it must still not verify what another key signed.
	other := newRSAKey(t, "rsa-1", 1)
	if _, err := p.Authenticate(bearer(other.sign(t, claimsFor(nil)))); err == nil {
		t.Error("token of an unknown key accepted")
	}
	// An ES256 key is never used for RS256, whatever the kid says.
	if got := p.static.candidates("ec-1", jose.RS256); len(got) != 1 || got[0].KeyID != "" {
		t.Errorf("candidates for RS256 with kid ec-1: %v", got)
	}
}

func TestKeyFileErrors(t *testing.T) {
	ec := newECKey(t, "ec-1")
	priv, _ := x509.MarshalPKCS8PrivateKey(ec.priv)
	privJWK, _ := jose.JSONWebKey{Key: ec.priv, KeyID: "x"}.MarshalJSON()
	tests := map[string][]byte{
		"private PEM":   pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: priv}),
		"private JWK":   privJWK,
		"private JWKS":  []byte(`{"keys":[` + string(privJWK) + `]}`),
		"symmetric JWK": []byte(`{"kty":"oct","k":"c2VjcmV0"}`),
		"garbage":       []byte("hello"),
		"bad PEM":       pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte("x")}),
	}
	for name, data := range tests {
		if _, err := parseKeyFile(data); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := loadKeyFile(t.TempDir() + "/missing.pem"); err == nil {
		t.Error("missing file accepted")
	}
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
