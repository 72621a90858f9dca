package jwt

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/go-jose/go-jose/v4"
	josejwt "github.com/go-jose/go-jose/v4/jwt"
)

// A JWKS that publishes a key's private half (a misconfigured IdP or
// mock) hands every reader of the public JWKS URL the signing key: such
// keys must not be used (until the twenty-first session the remote path
// reduced them to their public half and trusted them).
func TestJWKSPrivateKeysNotTrusted(t *testing.T) {
	leaked := newRSAKey(t, "leaked", 2)
	i := newIDP(t)
	body, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: leaked.priv, KeyID: "leaked", Algorithm: "RS256", Use: "sig"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	i.body = body // served at the JWKS URL, to anyone
	p := remoteProvider(t, i, nil)
	// Anyone who fetched the JWKS signs a token of their own.
	forged := leaked.sign(t, claimsFor(func(c map[string]any) { c["sub"] = "attacker" }))
	if pr, err := p.Authenticate(bearer(forged)); err == nil {
		t.Fatalf("token signed with a key whose private half the JWKS publishes was accepted: %+v", pr)
	}
}

// A kid-less static key (PEM key_file) beside jwks_url stands for every
// kid, so a token naming a kid the cached JWKS lacks never triggers the
// unknown-kid refetch: after the IdP rotates, its new tokens are refused
// until the scheduled refresh (default 15m).
func TestKidlessKeyDoesNotBlockRotationRefetch(t *testing.T) {
	k1 := newRSAKey(t, "k1", 0)
	k2 := newRSAKey(t, "k2", 1)
	static := newRSAKey(t, "", 2)
	der, _ := x509.MarshalPKIXPublicKey(static.priv.Public())
	pemFile := writeFile(t, t.TempDir(), "fallback.pem", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))

	i := newIDP(t, k1)
	p := remoteProvider(t, i, func(p *Provider) { p.KeyFiles = []string{pemFile} })
	if _, err := p.Authenticate(bearer(k1.sign(t, claimsFor(nil)))); err != nil {
		t.Fatalf("before rotation: %v", err)
	}
	i.setKeys(k1, k2)                // the IdP adds k2 and signs with it from now on
	time.Sleep(5 * time.Millisecond) // past min_refresh_interval (1ms)
	if _, err := p.Authenticate(bearer(k2.sign(t, claimsFor(nil)))); err != nil {
		t.Fatalf("token of the IdP's new key k2 refused (JWKS fetches: %d, no refetch for the unknown kid): %v", i.fetches.Load(), err)
	}
}

// "leeway 0s" in a Caddyfile must mean no clock skew, not the 30s default.
func TestLeewayZeroMeansNone(t *testing.T) {
	k := newRSAKey(t, "k1", 0)
	jwk, _ := jsonKey(k.public())
	file := writeFile(t, t.TempDir(), "k.jwk", []byte(jwk))
	var p Provider
	d := caddyfile.NewTestDispenser("jwt {\n key_file " + file + "\n issuer " + testIssuer + "\n audience " + testAudience + "\n leeway 0s\n}")
	if err := p.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	provision(t, &p)
	expired := k.sign(t, claimsFor(func(c map[string]any) { c["exp"] = time.Now().Add(-20 * time.Second).Unix() }))
	if _, err := p.Authenticate(bearer(expired)); err == nil {
		t.Fatalf("token expired 20s ago accepted with leeway 0s (effective leeway %v)", p.leeway)
	}
}

// The private-key refusal of JWKS key files is a byte search for `"d"`:
// the same member written with a JSON escape slips through.
func TestKeyFileEscapedPrivateKeyRefused(t *testing.T) {
	ec := newECKey(t, "ec-1")
	privJWK, _ := jose.JSONWebKey{Key: ec.priv, KeyID: "x"}.MarshalJSON()
	escaped := strings.Replace(string(privJWK), `"d":`, `"\u0064":`, 1)
	if _, err := parseKeyFile([]byte(`{"keys":[` + escaped + `]}`)); err == nil {
		t.Fatal("JWKS key file holding a private key (\"d\" escaped as \\u0064) accepted")
	}
}

// RSA keys shorter than MinRSABits are never used, and a JWKS left with
// no usable key (empty, or only such keys) is a failed fetch: the last
// good key set stays.
func TestWeakAndEmptyJWKS(t *testing.T) {
	good := newRSAKey(t, "good", 0)
	weakPriv, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	weak := testKey{kid: "weak", alg: jose.RS256, priv: weakPriv}

	i := newIDP(t, good, weak)
	p := remoteProvider(t, i, nil)
	if _, err := p.Authenticate(bearer(good.sign(t, claimsFor(nil)))); err != nil {
		t.Fatalf("token of the 2048-bit key: %v", err)
	}
	if _, err := p.Authenticate(bearer(weak.sign(t, claimsFor(nil)))); err == nil {
		t.Fatal("token of a 1024-bit RSA key accepted")
	}
	for _, body := range []string{`{"keys":[]}`, `{"keys":[` + jwkJSON(t, weak.public()) + `]}`} {
		i.mu.Lock()
		i.body = []byte(body)
		i.mu.Unlock()
		time.Sleep(5 * time.Millisecond) // past min_refresh_interval
		_ = p.remote.refresh(context.Background())
		if _, err := p.Authenticate(bearer(good.sign(t, claimsFor(nil)))); err != nil {
			t.Fatalf("after the IdP served %s: %v; want the last good key set kept", body, err)
		}
	}
}

func jwkJSON(t *testing.T, k jose.JSONWebKey) string {
	t.Helper()
	b, err := k.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A key file with a short RSA key is refused at load, saying why.
func TestKeyFileWeakRSARefused(t *testing.T) {
	weak, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(weak.Public())
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	jwk := jwkJSON(t, jose.JSONWebKey{Key: weak.Public(), KeyID: "w"})
	for name, data := range map[string]string{"PEM": string(pemKey), "JWK": jwk, "JWKS": `{"keys":[` + jwk + `]}`} {
		if _, err := parseKeyFile([]byte(data)); err == nil || !strings.Contains(err.Error(), "2048") {
			t.Errorf("%s key file with a 1024-bit RSA key: %v, want a refusal naming 2048 bits", name, err)
		}
	}
}

// A key file holding a private key marked for encryption is refused as
// well: published private material, whatever its use.
func TestKeyFileEncPrivateKeyRefused(t *testing.T) {
	sig, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	enc, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &sig.PublicKey, KeyID: "sig", Use: "sig", Algorithm: "ES256"})
	priv, _ := json.Marshal(jose.JSONWebKey{Key: enc, KeyID: "enc", Use: "enc"})
	doc := []byte(`{"keys":[` + string(pub) + `,` + string(priv) + `]}`)
	if _, err := parseKeyFile(doc); err == nil {
		t.Error("a key_file holding a private (encryption) key loaded; it was refused before")
	}
}

// Tokens that say they are not access tokens (Keycloak's ID or refresh
// token typ claim, RFC 8725 explicit types) are refused, with the right
// issuer and audience too; access tokens typed "Bearer", and untyped
// ones, pass.
func TestNotAccessTokensRefused(t *testing.T) {
	k := newRSAKey(t, "k1", 0)
	i := newIDP(t, k)
	p := remoteProvider(t, i, nil)
	sign := func(headerTyp string, claimTyp any) string {
		sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}},
			(&jose.SignerOptions{}).WithType(jose.ContentType(headerTyp)))
		if err != nil {
			t.Fatal(err)
		}
		tok, err := josejwt.Signed(sig).Claims(claimsFor(func(c map[string]any) {
			if claimTyp != nil {
				c["typ"] = claimTyp
			}
		})).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	for _, tc := range []struct {
		name, headerTyp string
		claimTyp        any
		ok              bool
	}{
		{"untyped", "JWT", nil, true},
		{"Keycloak access token", "JWT", "Bearer", true},
		{"RFC 9068 access token", "at+jwt", nil, true},
		{"Keycloak ID token", "JWT", "ID", false},
		{"Keycloak refresh token", "JWT", "Refresh", false},
		{"logout token", "logout+jwt", nil, false},
		{"DPoP proof", "dpop+jwt", nil, false},
	} {
		_, err := p.Authenticate(bearer(sign(tc.headerTyp, tc.claimTyp)))
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, want accepted %v", tc.name, err, tc.ok)
		}
	}
}
