package integration

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/go-jose/go-jose/v4"
	josejwt "github.com/go-jose/go-jose/v4/jwt"

	_ "github.com/proofgate/proofgate/internal/auth/caddyauth"
	_ "github.com/proofgate/proofgate/internal/auth/jwt"
)

const (
	jwtIssuer   = "https://idp.test/realms/credebl"
	jwtAudience = "proofgate"
)

// jwtKey is a signing key of the test IdP.
type jwtKey struct {
	kid  string
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

func newJWTKey(t *testing.T, kid string, alg jose.SignatureAlgorithm) jwtKey {
	t.Helper()
	var priv crypto.Signer
	var err error
	if alg == jose.ES256 {
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	} else {
		priv, err = rsa.GenerateKey(rand.Reader, 2048)
	}
	if err != nil {
		t.Fatal(err)
	}
	return jwtKey{kid: kid, alg: alg, priv: priv}
}

// token signs Keycloak-shaped access token claims; roles are the caller's
// roles in orgA (nil: not a member of orgA), mod changes the claims last.
func (k jwtKey) token(t *testing.T, roles []string, mod func(map[string]any)) string {
	t.Helper()
	now := time.Now()
	ra := map[string]any{
		orgB:      map[string]any{"roles": []string{"owner"}},
		"account": map[string]any{"roles": []string{"manage-account"}},
	}
	if roles != nil {
		ra[orgA] = map[string]any{"roles": roles}
	}
	claims := map[string]any{
		"iss": jwtIssuer, "aud": []string{jwtAudience, "account"}, "sub": "0c1f-user",
		"exp": now.Add(5 * time.Minute).Unix(), "iat": now.Unix(), "typ": "Bearer",
		"azp": "credebl-platform", "resource_access": ra,
	}
	if mod != nil {
		mod(claims)
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}},
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

// jwtIDP serves a JWKS over loopback, like Keycloak's certs endpoint.
type jwtIDP struct {
	srv     *httptest.Server
	mu      sync.Mutex
	keys    []jose.JSONWebKey
	down    atomic.Bool
	fetches atomic.Int64
}

func newJWTIDP(t *testing.T, keys ...jwtKey) *jwtIDP {
	i := &jwtIDP{}
	i.publish(keys...)
	i.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i.fetches.Add(1)
		if i.down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		i.mu.Lock()
		b, _ := json.Marshal(jose.JSONWebKeySet{Keys: i.keys})
		i.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	t.Cleanup(i.srv.Close)
	return i
}

func (i *jwtIDP) publish(keys ...jwtKey) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.keys = nil
	for _, k := range keys {
		i.keys = append(i.keys, jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"})
	}
}

func (i *jwtIDP) url() string { return i.srv.URL + "/realms/credebl/protocol/openid-connect/certs" }

// jwtAuth is an auth block with a jwt provider for the IdP, plus extra
// providers (in Caddyfile order) before and after it.
func jwtAuth(i *jwtIDP, before, after string) string {
	return `
		auth {
			` + before + `
			jwt {
				jwks_url ` + i.url() + `
				issuer ` + jwtIssuer + `
				audience ` + jwtAudience + `
				algorithms RS256 ES256
				orgs_claim resource_access keycloak
				min_refresh_interval 1ms
			}
			` + after + `
			allowed_roles owner admin verifier
		}`
}

// startJWTCaddy loads a local-backend site whose auth block is authBlock.
func startJWTCaddy(t *testing.T, authBlock string) *caddytest.Tester {
	t.Helper()
	tester := newTester(t)
	tester.InitServer(jwtConfig(t.TempDir(), authBlock), "caddyfile")
	settle(t)
	return tester
}

func jwtConfig(dir, authBlock string) string {
	return globalOptions(dir) + `
` + base + ` {
	proofgate {
		backend local local {
			public_url ` + base + `
		}
		` + authBlock + `
	}
	respond "passed through" 200
}
`
}

func postBearer(t *testing.T, org, token string) response {
	t.Helper()
	return do(t, http.MethodPost, oobPath(org, "indy"), indyBody, "Content-Type: application/json", "Authorization: Bearer "+token)
}

func TestJWTOverHTTP(t *testing.T) {
	rs := newJWTKey(t, "rsa-1", jose.RS256)
	ec := newJWTKey(t, "ec-1", jose.ES256)
	idp := newJWTIDP(t, rs, ec)
	startJWTCaddy(t, jwtAuth(idp, "", ""))

	if n := idp.fetches.Load(); n != 0 {
		t.Fatalf("loading the config fetched the JWKS %d times; it must wait for the first token", n)
	}
	verifier := rs.token(t, []string{"verifier"}, nil)
	for _, tc := range []struct {
		name      string
		token     string
		status    int
		challenge string // substring of WWW-Authenticate for 401
	}{
		{"verifier RS256", verifier, 201, ""},
		{"owner ES256", ec.token(t, []string{"owner"}, nil), 201, ""},
		{"client credentials", rs.token(t, []string{"admin"}, func(c map[string]any) {
			delete(c, "sub")
			c["azp"] = "org-client"
		}), 201, ""},
		{"holder", rs.token(t, []string{"holder"}, nil), 403, ""},
		{"member without role", rs.token(t, []string{}, nil), 403, ""},
		{"non-member", rs.token(t, nil, nil), 403, ""},
		{"expired", rs.token(t, []string{"verifier"}, func(c map[string]any) {
			c["exp"] = time.Now().Add(-time.Hour).Unix()
		}), 401, `error="invalid_token"`},
		{"wrong issuer", rs.token(t, []string{"verifier"}, func(c map[string]any) { c["iss"] = "https://evil.test" }), 401, `error="invalid_token"`},
		{"wrong audience", rs.token(t, []string{"verifier"}, func(c map[string]any) { c["aud"] = "account" }), 401, `error="invalid_token"`},
		{"tampered", verifier[:len(verifier)-4] + "AAAA", 401, `error="invalid_token"`},
		{"alg none", "eyJhbGciOiJub25lIn0." + strings.Split(verifier, ".")[1] + ".", 401, `error="invalid_token"`},
		{"malformed", "aaaa.bbbb.cccc", 401, `error="invalid_token"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := postBearer(t, orgA, tc.token)
			switch tc.status {
			case 201:
				wantBody(t, r, 201, "")
			case 403:
				wantBody(t, r, 403, forbidden)
			case 401:
				wantBody(t, r, 401, unauthorized)
				if ch := r.header.Get("WWW-Authenticate"); !strings.HasPrefix(ch, "Bearer ") || !strings.Contains(ch, tc.challenge) {
					t.Fatalf("WWW-Authenticate %q, want Bearer with %s", ch, tc.challenge)
				}
			}
		})
	}
	// No credential at all: a plain Bearer challenge.
	r := do(t, http.MethodPost, oobPath(orgA, "indy"), indyBody, "Content-Type: application/json")
	wantBody(t, r, 401, unauthorized)
	if ch := r.header.Get("WWW-Authenticate"); !strings.HasPrefix(ch, "Bearer") || strings.Contains(ch, "invalid_token") {
		t.Fatalf("WWW-Authenticate without a token: %q", ch)
	}
}

func TestJWTKeyRotationAndIdPDown(t *testing.T) {
	k1 := newJWTKey(t, "k1", jose.RS256)
	k2 := newJWTKey(t, "k2", jose.RS256)
	k3 := newJWTKey(t, "k3", jose.ES256)
	idp := newJWTIDP(t, k1)
	startJWTCaddy(t, jwtAuth(idp, "", ""))

	wantBody(t, postBearer(t, orgA, k1.token(t, []string{"verifier"}, nil)), 201, "")
	// Rotation at the IdP is picked up without a restart.
	idp.publish(k1, k2)
	time.Sleep(2 * time.Millisecond)
	wantBody(t, postBearer(t, orgA, k2.token(t, []string{"verifier"}, nil)), 201, "")

	// IdP down: cached keys still work; a key it never served cannot.
	idp.publish(k1, k2, k3)
	idp.down.Store(true)
	time.Sleep(2 * time.Millisecond)
	wantBody(t, postBearer(t, orgA, k2.token(t, []string{"verifier"}, nil)), 201, "")
	wantBody(t, postBearer(t, orgA, k3.token(t, []string{"verifier"}, nil)), 401, unauthorized)

	// Back up: the new key works.
	idp.down.Store(false)
	time.Sleep(2 * time.Millisecond)
	wantBody(t, postBearer(t, orgA, k3.token(t, []string{"verifier"}, nil)), 201, "")
}

// TestJWTIdPNeverReached: with no key set ever fetched, a token cannot be
// judged, so the answer is 503 (try again), not 401 (your token is bad).
func TestJWTIdPNeverReached(t *testing.T) {
	k := newJWTKey(t, "k1", jose.RS256)
	idp := newJWTIDP(t, k)
	idp.down.Store(true)
	startJWTCaddy(t, jwtAuth(idp, "", ""))
	r := postBearer(t, orgA, k.token(t, []string{"verifier"}, nil))
	wantBody(t, r, http.StatusServiceUnavailable,
		`{"statusCode":503,"error":"Service Unavailable","message":"credentials cannot be checked now; try again later"}`)
	if r.header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	// Once the IdP answers, the next refresh lets the token in (refreshes
	// are rate limited, so this may take a moment).
	idp.down.Store(false)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r = postBearer(t, orgA, k.token(t, []string{"verifier"}, nil))
		if r.status == http.StatusCreated {
			break
		}
		if r.status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("after the IdP came back: %d %s", r.status, r.body)
		}
	}
}

func TestJWTCacheSurvivesReload(t *testing.T) {
	k := newJWTKey(t, "k1", jose.RS256)
	idp := newJWTIDP(t, k)
	dir := t.TempDir()
	tester := newTester(t)
	tester.InitServer(jwtConfig(dir, jwtAuth(idp, "", "")), "caddyfile")
	settle(t)
	tok := k.token(t, []string{"verifier"}, nil)
	wantBody(t, postBearer(t, orgA, tok), 201, "")
	before := idp.fetches.Load()

	// Same JWKS settings, another change (allowed roles): a reload.
	tester.InitServer(jwtConfig(dir, strings.Replace(jwtAuth(idp, "", ""), "allowed_roles owner admin verifier", "allowed_roles verifier", 1)), "caddyfile")
	settle(t)
	idp.down.Store(true) // the reloaded config must not need the IdP
	wantBody(t, postBearer(t, orgA, tok), 201, "")
	if n := idp.fetches.Load(); n != before {
		t.Fatalf("reload refetched the JWKS (%d fetches, %d before): the cache did not survive", n, before)
	}
}

func TestJWTProviderOrder(t *testing.T) {
	k := newJWTKey(t, "k1", jose.RS256)
	idp := newJWTIDP(t, k)
	bad := k.token(t, []string{"verifier"}, func(c map[string]any) { c["exp"] = time.Now().Add(-time.Hour).Unix() })

	// api_key first: a JWT-shaped bearer is not an API key, so jwt decides.
	startJWTCaddy(t, jwtAuth(idp, "api_key "+keyA+" org "+orgA, ""))
	r := postBearer(t, orgA, bad)
	wantBody(t, r, 401, unauthorized)
	if !strings.Contains(r.header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Fatalf("WWW-Authenticate %q", r.header.Get("WWW-Authenticate"))
	}
	wantBody(t, postBearer(t, orgA, keyA), 201, "")
	wantBody(t, postBearer(t, orgA, k.token(t, []string{"verifier"}, nil)), 201, "")

	// jwt first: an invalid JWT is refused even though an X-API-Key that
	// api_key would accept rides along; no fall-through to another provider.
	startJWTCaddy(t, jwtAuth(idp, "", "api_key "+keyA+" org "+orgA))
	r = do(t, http.MethodPost, oobPath(orgA, "indy"), indyBody, "Content-Type: application/json",
		"Authorization: Bearer "+bad, "X-API-Key: "+keyA)
	wantBody(t, r, 401, unauthorized)
	wantBody(t, postBearer(t, orgA, keyA), 201, "")
}

// TestJWTExample adapts examples/jwt.Caddyfile with its environment and
// checks the jwt provider it yields.
func TestJWTExample(t *testing.T) {
	t.Setenv("PROOFGATE_JWKS_URL", "https://idp.example.com/realms/credebl/protocol/openid-connect/certs")
	t.Setenv("PROOFGATE_ISSUER", "https://idp.example.com/realms/credebl")
	data, err := os.ReadFile("../examples/jwt.Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		`"provider":"jwt"`,
		// Runtime placeholders, resolved (or refused, naming the
		// variable) at load: TestExampleCaddyfiles.
		`"jwks_url":"{env.PROOFGATE_JWKS_URL}"`,
		`"issuer":"{env.PROOFGATE_ISSUER}"`,
		`"audience":["proofgate"]`,
		`"algorithms":["RS256","ES256"]`,
		`"orgs_claim":"resource_access"`,
		`"orgs_format":"keycloak"`,
		`"allowed_roles":["owner","admin","verifier"]`,
		`"listen":[":8080"]`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("adapted example lacks %s:\n%s", want, s)
		}
	}
}
