package jwt

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/go-jose/go-jose/v4"
	josejwt "github.com/go-jose/go-jose/v4/jwt"
	"go.uber.org/zap"
)

// testKey is a signing key made by a test, with the algorithm it signs with.
type testKey struct {
	kid  string
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

var (
	rsaOnce sync.Once
	rsaPool []*rsa.PrivateKey
)

// rsaKey returns one of a few RSA keys generated once per test binary
// (2048-bit generation is slow enough to matter across many tests).
func rsaKey(t testing.TB, i int) *rsa.PrivateKey {
	t.Helper()
	rsaOnce.Do(func() {
		for range 3 {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				panic(err)
			}
			rsaPool = append(rsaPool, k)
		}
	})
	return rsaPool[i]
}

func newRSAKey(t testing.TB, kid string, i int) testKey {
	return testKey{kid: kid, alg: jose.RS256, priv: rsaKey(t, i)}
}

func newECKey(t testing.TB, kid string) testKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return testKey{kid: kid, alg: jose.ES256, priv: k}
}

func newEdKey(t testing.TB, kid string) testKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return testKey{kid: kid, alg: jose.EdDSA, priv: k}
}

func (k testKey) public() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"}
}

// sign makes a compact JWT signed by k with the given claims.
func (k testKey) sign(t testing.TB, claims map[string]any) string {
	t.Helper()
	return k.signAs(t, k.alg, claims)
}

func (k testKey) signAs(t testing.TB, alg jose.SignatureAlgorithm, claims map[string]any) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := josejwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// idp is a JWKS endpoint over loopback whose key set a test can rotate
// and take down.
type idp struct {
	srv     *httptest.Server
	mu      sync.Mutex
	keys    []jose.JSONWebKey
	down    atomic.Bool
	fetches atomic.Int64
	delay   time.Duration
	body    []byte // if set, served instead of the key set
}

func newIDP(t testing.TB, keys ...testKey) *idp {
	t.Helper()
	i := &idp{}
	i.setKeys(keys...)
	i.srv = httptest.NewServer(http.HandlerFunc(i.serve))
	t.Cleanup(i.srv.Close)
	return i
}

func (i *idp) url() string { return i.srv.URL + "/realms/test/protocol/openid-connect/certs" }

func (i *idp) setKeys(keys ...testKey) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.keys = nil
	for _, k := range keys {
		i.keys = append(i.keys, k.public())
	}
}

func (i *idp) serve(w http.ResponseWriter, r *http.Request) {
	i.fetches.Add(1)
	if i.delay > 0 {
		time.Sleep(i.delay)
	}
	if i.down.Load() {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	i.mu.Lock()
	body := i.body
	if body == nil {
		body, _ = json.Marshal(jose.JSONWebKeySet{Keys: i.keys})
	}
	i.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

const (
	testIssuer   = "https://idp.test/realms/test"
	testAudience = "proofgate"
	testOrg      = "6b1e4e6c-7d3f-4b8e-9a55-0f6f3c2b1a01"
	otherOrg     = "9f2c0a7e-1b2d-4c3e-8f4a-5b6c7d8e9f00"
)

// claimsFor returns valid claims for a verifier of testOrg, changed by mod.
func claimsFor(mod func(map[string]any)) map[string]any {
	now := time.Now()
	c := map[string]any{
		"iss": testIssuer,
		"aud": []string{testAudience, "account"},
		"sub": "user-1",
		"exp": now.Add(5 * time.Minute).Unix(),
		"iat": now.Unix(),
		"nbf": now.Add(-time.Second).Unix(),
		"resource_access": map[string]any{
			testOrg:   map[string]any{"roles": []string{"verifier"}},
			"account": map[string]any{"roles": []string{"manage-account"}},
		},
	}
	if mod != nil {
		mod(c)
	}
	return c
}

// provision provisions and validates p like Caddy does and cleans it up
// at the end of the test.
func provision(t testing.TB, p *Provider) *Provider {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := p.Provision(ctx); err != nil {
		t.Fatalf("Provision: %v", err)
	}
	t.Cleanup(func() { _ = p.Cleanup() })
	// Caddy's test logger is a development logger; keep test output to
	// failures.
	if !testing.Verbose() {
		p.logger = zap.NewNop()
		if p.remote != nil {
			p.remote.log = p.logger
		}
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return p
}

// remoteProvider is the provider a Keycloak deployment would configure,
// against the given test IdP.
func remoteProvider(t testing.TB, i *idp, mod func(*Provider)) *Provider {
	p := &Provider{
		JWKSURL:    i.url(),
		Issuer:     testIssuer,
		Audience:   []string{testAudience},
		Algorithms: []string{"RS256", "ES256", "EdDSA"},
		// Short, so tests of rotation need not wait; the rate limit
		// test sets its own.
		MinRefreshInterval: caddy.Duration(time.Millisecond),
	}
	if mod != nil {
		mod(p)
	}
	return provision(t, p)
}

func bearer(token string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/orgs/"+testOrg+"/proofs/oob", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}
