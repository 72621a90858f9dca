package jwt

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/go-jose/go-jose/v4"
	josejwt "github.com/go-jose/go-jose/v4/jwt"

	"github.com/proofgate/proofgate/internal/auth"
)

func TestAuthenticate(t *testing.T) {
	rs := newRSAKey(t, "rsa-1", 0)
	ec := newECKey(t, "ec-1")
	ed := newEdKey(t, "ed-1")
	stranger := newRSAKey(t, "rsa-1", 1) // same kid, key the IdP never published
	i := newIDP(t, rs, ec, ed)
	p := remoteProvider(t, i, nil)

	rsaPub, err := x509.MarshalPKIXPublicKey(rs.priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	rsaPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: rsaPub})

	now := time.Now()
	good := rs.sign(t, claimsFor(nil))
	tests := []struct {
		name   string
		token  string
		reason string // "" means accepted
	}{
		{"RS256", good, ""},
		{"ES256", ec.sign(t, claimsFor(nil)), ""},
		{"EdDSA", ed.sign(t, claimsFor(nil)), ""},
		{"leeway covers a just-expired token", rs.sign(t, claimsFor(func(c map[string]any) {
			c["exp"] = now.Add(-10 * time.Second).Unix()
		})), ""},
		{"expired", rs.sign(t, claimsFor(func(c map[string]any) {
			c["exp"] = now.Add(-time.Minute).Unix()
		})), "token expired"},
		{"no exp", rs.sign(t, claimsFor(func(c map[string]any) { delete(c, "exp") })), "token has no exp"},
		{"not yet valid", rs.sign(t, claimsFor(func(c map[string]any) {
			c["nbf"] = now.Add(time.Minute).Unix()
		})), "token not valid yet"},
		{"issued in the future", rs.sign(t, claimsFor(func(c map[string]any) {
			c["iat"] = now.Add(time.Minute).Unix()
		})), "token issued in the future"},
		{"wrong issuer", rs.sign(t, claimsFor(func(c map[string]any) {
			c["iss"] = "https://evil.test/realms/test"
		})), "wrong issuer"},
		{"no issuer", rs.sign(t, claimsFor(func(c map[string]any) { delete(c, "iss") })), "wrong issuer"},
		{"wrong audience", rs.sign(t, claimsFor(func(c map[string]any) {
			c["aud"] = "account"
		})), "wrong audience"},
		{"algorithm not in allow-list", rs.signAs(t, jose.PS256, claimsFor(nil)), "signature algorithm not allowed"},
		{"alg none", noneToken(claimsFor(nil)), "signature algorithm not allowed"},
		{"HS256 keyed with the public key", hmacToken(t, rsaPEM, "rsa-1", claimsFor(nil)), "signature algorithm not allowed"},
		{"tampered payload", tamper(good), "bad signature"},
		{"signature of another key", stranger.sign(t, claimsFor(nil)), "bad signature"},
		{"unknown kid", newECKey(t, "ec-unknown").sign(t, claimsFor(nil)), "unknown signing key"},
		{"malformed", "aaaa.bbbb.cccc", "malformed token"},
		{"empty parts", "..", "malformed token"},
		{"too large", strings.Repeat("a", maxTokenSize) + ".b.c", "token too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := bearer(tc.token)
			pr, err := p.Authenticate(r)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				if pr.Subject != "jwt:user-1" || !pr.Authorize(testOrg, auth.DefaultAllowedRoles) {
					t.Fatalf("principal %+v", pr)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want %q", tc.reason)
			}
			if errors.Is(err, auth.ErrNoCredential) {
				t.Fatalf("fell through to the next provider; a present token must be refused")
			}
			var te *TokenError
			if !errors.As(err, &te) || te.Reason != tc.reason {
				t.Fatalf("error %v, want reason %q", err, tc.reason)
			}
			ch := p.Challenge(err)
			if !strings.HasPrefix(ch, `Bearer error="invalid_token"`) || !strings.Contains(ch, tc.reason) {
				t.Fatalf("challenge %q", ch)
			}
		})
	}
}

// noneToken builds an unsigned token by hand: go-jose refuses to make one.
func noneToken(claims map[string]any) string {
	enc := base64.RawURLEncoding
	h := enc.EncodeToString([]byte(`{"alg":"none","kid":"rsa-1","typ":"JWT"}`))
	b, _ := json.Marshal(claims)
	return h + "." + enc.EncodeToString(b) + "."
}

func hmacToken(t testing.TB, secret []byte, kid string, claims map[string]any) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: jose.JSONWebKey{Key: secret, KeyID: kid}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := josejwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// tamper flips one claim in the payload and keeps the signature.
func tamper(token string) string {
	parts := strings.Split(token, ".")
	b, _ := base64.RawURLEncoding.DecodeString(parts[1])
	s := strings.Replace(string(b), `"sub":"user-1"`, `"sub":"user-2"`, 1)
	parts[1] = base64.RawURLEncoding.EncodeToString([]byte(s))
	return strings.Join(parts, ".")
}

func TestNotOurCredential(t *testing.T) {
	i := newIDP(t, newECKey(t, "ec-1"))
	p := remoteProvider(t, i, nil)
	for _, h := range []string{"", "Basic dXNlcjpwYXNz", "Bearer opaque-api-key-value", "Bearer "} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		if h != "" {
			r.Header.Set("Authorization", h)
		}
		if _, err := p.Authenticate(r); !errors.Is(err, auth.ErrNoCredential) {
			t.Errorf("%q: err %v, want ErrNoCredential", h, err)
		}
	}
	if got := p.Challenge(nil); got != "Bearer" {
		t.Errorf("challenge without error: %q", got)
	}
	if n := i.fetches.Load(); n != 0 {
		t.Errorf("JWKS fetched %d times for requests without a JWT", n)
	}
}

func TestClientCredentialsToken(t *testing.T) {
	k := newRSAKey(t, "k1", 0)
	i := newIDP(t, k)
	p := remoteProvider(t, i, nil)
	// A Keycloak service-account token: no user, the client in azp, the
	// client's org roles as for a user.
	tok := k.sign(t, claimsFor(func(c map[string]any) {
		delete(c, "sub")
		c["azp"] = "org-client"
		c["resource_access"] = map[string]any{testOrg: map[string]any{"roles": []string{"owner"}}}
	}))
	pr, err := p.Authenticate(bearer(tok))
	if err != nil {
		t.Fatal(err)
	}
	if pr.Subject != "jwt:client:org-client" || !pr.Authorize(testOrg, auth.DefaultAllowedRoles) {
		t.Fatalf("principal %+v", pr)
	}
}

// TestAuthorizeRoles checks the 403 cases at the principal level: the
// handler refuses when Authorize is false.
func TestAuthorizeRoles(t *testing.T) {
	k := newRSAKey(t, "k1", 0)
	i := newIDP(t, k)
	p := remoteProvider(t, i, nil)
	tests := []struct {
		name  string
		roles any // resource_access[testOrg]; nil: not a member
		want  bool
	}{
		{"owner", []string{"owner"}, true},
		{"admin", []string{"admin"}, true},
		{"verifier among others", []string{"member", "verifier"}, true},
		{"holder only", []string{"holder"}, false},
		{"member without role", []string{}, false},
		{"member with unrelated role", []string{"issuer"}, false},
		{"non-member", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ra := map[string]any{otherOrg: map[string]any{"roles": []string{"owner"}}}
			if tc.roles != nil {
				ra[testOrg] = map[string]any{"roles": tc.roles}
			}
			pr, err := p.Authenticate(bearer(k.sign(t, claimsFor(func(c map[string]any) { c["resource_access"] = ra }))))
			if err != nil {
				t.Fatalf("valid token refused (must be 403 later, not 401): %v", err)
			}
			if got := pr.Authorize(testOrg, auth.DefaultAllowedRoles); got != tc.want {
				t.Fatalf("Authorize = %v, want %v (orgs %v)", got, tc.want, pr.Orgs)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		p    Provider
		want string
	}{
		{"no keys", Provider{}, "jwks_url or at least one key_file"},
		{"none", Provider{JWKSURL: "https://idp.test/certs", Algorithms: []string{"none"}}, `algorithms: "none"`},
		{"HS256", Provider{JWKSURL: "https://idp.test/certs", Algorithms: []string{"RS256", "HS256"}}, `algorithms: "HS256"`},
		{"format", Provider{JWKSURL: "https://idp.test/certs", OrgsFormat: "xml"}, "orgs_claim format"},
		{"leeway", Provider{JWKSURL: "https://idp.test/certs", Leeway: new(caddy.Duration(time.Hour))}, "leeway"},
		{"min over max", Provider{JWKSURL: "https://idp.test/certs", MinRefreshInterval: caddy.Duration(time.Hour)}, "min_refresh_interval"},
		{"negative", Provider{JWKSURL: "https://idp.test/certs", FetchTimeout: caddy.Duration(-time.Second)}, "fetch_timeout"},
		{"empty audience", Provider{JWKSURL: "https://idp.test/certs", Audience: []string{" "}}, "audience"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
			defer cancel()
			p := tc.p
			err := p.Provision(ctx)
			if err == nil {
				err = p.Validate()
			}
			_ = p.Cleanup()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want it to mention %q", err, tc.want)
			}
		})
	}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
	defer cancel()
	for _, u := range []string{"ftp://idp.test/certs", "/certs", "https://"} {
		p := Provider{JWKSURL: u}
		if err := p.Provision(ctx); err == nil || !strings.Contains(err.Error(), "jwks_url") {
			t.Errorf("%q: %v", u, err)
		}
		_ = p.Cleanup()
	}
	p := Provider{JWKSURL: "https://idp.test/certs"}
	if err := p.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup()
	if err := p.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if !slices.Equal(p.Algorithms, DefaultAlgorithms) || p.OrgsClaim != DefaultOrgsClaim || p.OrgsFormat != FormatKeycloak {
		t.Fatalf("defaults not applied: %+v", p)
	}
}
