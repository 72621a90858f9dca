package jwt

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

const jwksPassword = "jwks-basic-auth-s3cret"

// TestJWKSURLCredentialsRefused: a jwks_url with userinfo (given as
// {env.*} to keep it out of the config) is refused at load, and the error
// names neither the password nor the user name (which can be a token by
// itself). Go would have sent them as basic auth, and logged them with
// every failed fetch.
func TestJWKSURLCredentialsRefused(t *testing.T) {
	for _, tc := range []struct{ name, url, want string }{
		{"user and password", "https://proofgate:" + jwksPassword + "@idp.example.com/certs", "must not contain credentials"},
		{"user name only", "https://" + jwksPassword + "@idp.example.com/certs", "must not contain credentials"},
		{"plain http with credentials", "http://proofgate:" + jwksPassword + "@idp.example.com/certs", "must not contain credentials"},
		// The scheme forgotten: parsed as scheme "proofgate", opaque
		// "<password>@idp.example.com/certs".
		{"no scheme", "proofgate:" + jwksPassword + "@idp.example.com/certs", "want an absolute http(s) URL"},
		{"unparsable", "https://proofgate:" + jwksPassword + "@idp.example.com:port/certs", "not a valid URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PG_TEST_JWKS_URL", tc.url)
			ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
			defer cancel()
			p := &Provider{JWKSURL: "{env.PG_TEST_JWKS_URL}", Issuer: "https://idp.example.com"}
			err := p.Provision(ctx)
			defer p.Cleanup()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Provision: %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), jwksPassword) {
				t.Errorf("the load error carries the credentials: %v", err)
			}
		})
	}
}

// TestJWKSFetchLogsRedactedURL: what the cache logs of a failed fetch
// names the URL redacted, httprc's error text included. The load refuses
// credentials; this holds if a URL with them ever got this far.
func TestJWKSFetchLogsRedactedURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	// Nothing listens there: net/http's own error names the URL, its
	// password as "***" but its user name kept.
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	for _, base := range []string{srv.URL, down.URL} {
		for _, userinfo := range []string{"proofgate:" + jwksPassword, jwksPassword} {
			checkFetchLog(t, strings.Replace(base, "http://", "http://"+userinfo+"@", 1)+"/certs")
		}
	}
}

// checkFetchLog fetches u from a fresh cache and fails if any log field
// carries the credentials.
func checkFetchLog(t *testing.T, u string) {
	t.Helper()
	core, logs := observer.New(zap.DebugLevel)
	rk, err := newRemoteKeys(remoteOptions{url: u, refreshInterval: time.Hour, minRefresh: time.Hour, fetchTimeout: time.Second, maxSize: DefaultMaxJWKSSize}, zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	defer rk.Destruct()
	if rk.keys(context.Background()) != nil {
		t.Fatal("keys from an IdP that has none to give")
	}
	if logs.Len() == 0 {
		t.Fatal("the failed fetch was not logged")
	}
	for _, e := range logs.All() {
		for k, v := range e.ContextMap() {
			if s, ok := v.(string); ok && strings.Contains(s, jwksPassword) {
				t.Errorf("log %q field %s carries the credentials: %s", e.Message, k, s)
			}
		}
	}
}
