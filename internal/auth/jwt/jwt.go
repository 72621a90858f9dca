// Package jwt is the jwt authentication provider: "Authorization: Bearer
// <JWT>" checked against the keys of a JWKS URL (cached, refreshed on a
// schedule and on an unknown kid, rate limited, last good set kept) or of
// static PEM/JWK files, with an explicit algorithm allow-list. Org
// membership and roles are read from a configurable claim.
package jwt

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/go-jose/go-jose/v4"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/redact"
	"github.com/proofgate/proofgate/internal/secret"
)

func init() {
	caddy.RegisterModule(Provider{})
}

// Defaults.
const (
	DefaultLeeway             = 30 * time.Second
	DefaultRefreshInterval    = 15 * time.Minute
	DefaultMinRefreshInterval = 30 * time.Second
	DefaultFetchTimeout       = 5 * time.Second
	DefaultMaxJWKSSize        = 512 << 10
	DefaultOrgsClaim          = "resource_access"
	DefaultRolesClaim         = "roles"
)

// DefaultAlgorithms is the allow-list when none is configured: RS256 is
// what Keycloak, Auth0 and most OIDC IdPs sign access tokens with.
var DefaultAlgorithms = []string{"RS256"}

// supportedAlgorithms are the algorithms that may be allowed: asymmetric
// only, so "none" and HMAC keyed with a public key cannot be configured.
var supportedAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// Org claim formats.
const (
	// FormatKeycloak: {"<orgId>": {"roles": ["verifier", ...]}, ...}, the
	// form of Keycloak's resource_access claim that CREDEBL uses (one
	// Keycloak client per org).
	FormatKeycloak = "keycloak"
	// FormatMap: {"<orgId>": ["verifier", ...] | "verifier", ...}.
	FormatMap = "map"
	// FormatList: ["<orgId>", "<orgId>:<role>", ...]; bare org ids get the
	// roles of the roles claim.
	FormatList = "list"
)

// Provider authenticates callers by bearer JWTs.
type Provider struct {
	// JWKSURL is where the IdP publishes its signing keys (for Keycloak:
	// <issuer>/protocol/openid-connect/certs). Fetched at first use, then
	// every refresh_interval, and again when a token names an unknown key
	// (at most once per min_refresh_interval). When the IdP is down the
	// last good key set is kept. Placeholders are resolved at load time.
	JWKSURL string `json:"jwks_url,omitempty"`

	// KeyFiles are files holding static public keys: a JWKS, a JWK, or PEM
	// (PUBLIC KEY, RSA PUBLIC KEY, CERTIFICATE). Used together with
	// jwks_url if both are set. Private keys are refused.
	KeyFiles []string `json:"key_files,omitempty"`

	// Issuer, if set, must equal the token's "iss".
	Issuer string `json:"issuer,omitempty"`

	// Audience, if set, must contain at least one of the token's "aud"
	// values.
	Audience []string `json:"audience,omitempty"`

	// Algorithms is the signature algorithm allow-list (default RS256).
	// Supported: RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 ES512
	// EdDSA. "none" and HMAC algorithms cannot be allowed.
	Algorithms []string `json:"algorithms,omitempty"`

	// Leeway is the clock skew tolerated on exp, nbf and iat (default 30s).
	// Unset means the default; an explicit 0 means none.
	Leeway *caddy.Duration `json:"leeway,omitempty"`

	// RefreshInterval is how often the JWKS is refetched (default 15m).
	RefreshInterval caddy.Duration `json:"refresh_interval,omitempty"`

	// MinRefreshInterval is the least time between two fetches caused by
	// tokens naming unknown keys (default 30s): a key rotation at the IdP
	// is picked up that fast, and made-up kids cannot flood the IdP.
	MinRefreshInterval caddy.Duration `json:"min_refresh_interval,omitempty"`

	// FetchTimeout bounds one JWKS fetch (default 5s).
	FetchTimeout caddy.Duration `json:"fetch_timeout,omitempty"`

	// MaxJWKSSize caps the JWKS document, in bytes (default 512 KiB).
	MaxJWKSSize int64 `json:"max_jwks_size,omitempty"`

	// OrgsClaim names the claim holding org membership and roles (default
	// "resource_access"). A name that is not a top-level claim is read as a
	// dotted path ("realm_access.orgs").
	OrgsClaim string `json:"orgs_claim,omitempty"`

	// OrgsFormat is the shape of that claim: "keycloak" (default),
	// "map" or "list".
	OrgsFormat string `json:"orgs_format,omitempty"`

	// RolesClaim names the claim holding the roles given to bare org ids
	// of a "list" orgs claim (default "roles").
	RolesClaim string `json:"roles_claim,omitempty"`

	// InsecureHTTP allows a plain http jwks_url to a host that is not
	// loopback. Off by default: whoever sits on the path could hand out
	// keys of their own, and sign any token.
	InsecureHTTP bool `json:"insecure_http,omitempty"`

	algs      []jose.SignatureAlgorithm
	static    *keySet
	remote    *remoteKeys
	remoteKey string // remotePool key, "" when no remote cache is held
	leeway    time.Duration
	now       func() time.Time
	logger    *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Provider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "proofgate.auth.providers.jwt",
		New: func() caddy.Module { return new(Provider) },
	}
}

// Provision applies defaults, loads static keys and takes a JWKS cache
// from the pool (no fetch happens here).
func (p *Provider) Provision(ctx caddy.Context) error {
	p.logger = ctx.Logger()
	p.now = time.Now
	if len(p.Algorithms) == 0 {
		p.Algorithms = DefaultAlgorithms
	}
	if p.RefreshInterval == 0 {
		p.RefreshInterval = caddy.Duration(DefaultRefreshInterval)
	}
	if p.MinRefreshInterval == 0 {
		p.MinRefreshInterval = caddy.Duration(DefaultMinRefreshInterval)
	}
	if p.FetchTimeout == 0 {
		p.FetchTimeout = caddy.Duration(DefaultFetchTimeout)
	}
	if p.MaxJWKSSize == 0 {
		p.MaxJWKSSize = DefaultMaxJWKSSize
	}
	if p.OrgsClaim == "" {
		p.OrgsClaim = DefaultOrgsClaim
	}
	if p.OrgsFormat == "" {
		p.OrgsFormat = FormatKeycloak
	}
	if p.RolesClaim == "" {
		p.RolesClaim = DefaultRolesClaim
	}
	p.leeway = DefaultLeeway
	if p.Leeway != nil {
		p.leeway = time.Duration(*p.Leeway)
	}
	if w := p.scopeWarning(); w != "" {
		p.logger.Warn(w)
	}
	p.algs = p.algs[:0]
	for _, a := range p.Algorithms {
		p.algs = append(p.algs, jose.SignatureAlgorithm(a))
	}

	repl := caddy.NewReplacer()
	if p.Issuer != "" {
		// {env.ISSUER} in a Caddyfile: an unset variable is named here,
		// never silently an unchecked issuer.
		iss, err := repl.ReplaceOrErr(p.Issuer, true, true)
		if err != nil {
			return fmt.Errorf("jwt: issuer: %v", err)
		}
		p.Issuer = iss
	}
	if len(p.Audience) > 0 {
		// Resolved like the issuer: {env.AUD} left as written would
		// refuse every token as wrong_audience.
		aud := make([]string, len(p.Audience))
		for i, a := range p.Audience {
			v, err := repl.ReplaceOrErr(a, true, true)
			if err != nil {
				return fmt.Errorf("jwt: audience %d: %v", i+1, err)
			}
			aud[i] = v
		}
		p.Audience = aud
	}
	for i, f := range p.KeyFiles {
		path, err := repl.ReplaceOrErr(f, true, true)
		if err != nil {
			return fmt.Errorf("jwt: key_file %d: %v", i, err)
		}
		set, err := loadKeyFile(path)
		if err != nil {
			return fmt.Errorf("jwt: key_file %s: %v", path, err)
		}
		if p.static == nil {
			p.static = &keySet{}
		}
		p.static.keys = append(p.static.keys, set.keys...)
	}

	if p.JWKSURL != "" {
		u, err := repl.ReplaceOrErr(p.JWKSURL, true, true)
		if err != nil {
			return fmt.Errorf("jwt: jwks_url: %v", err)
		}
		if err := checkJWKSURL(u, p.InsecureHTTP); err != nil {
			return err
		}
		opts := remoteOptions{
			url:             u,
			refreshInterval: time.Duration(p.RefreshInterval),
			minRefresh:      time.Duration(p.MinRefreshInterval),
			fetchTimeout:    time.Duration(p.FetchTimeout),
			maxSize:         p.MaxJWKSSize,
		}
		key := opts.poolKey()
		val, _, err := remotePool.LoadOrNew(key, func() (caddy.Destructor, error) {
			return newRemoteKeys(opts, p.logger)
		})
		if err != nil {
			return fmt.Errorf("jwt: jwks_url: %v", err)
		}
		p.remote = val.(*remoteKeys)
		p.remoteKey = key
	}
	return nil
}

// scopeWarning is the load-time warning for a provider that checks neither
// issuer nor audience, or "".
func (p *Provider) scopeWarning() string {
	if p.Issuer != "" || len(p.Audience) > 0 {
		return ""
	}
	return "jwt: neither issuer nor audience is set: any token signed by these keys is accepted, including tokens the IdP issued for other clients; set issuer and audience"
}

// checkJWKSURL checks a resolved jwks_url. Its errors name the URL only
// redacted: it may come from {env.*} precisely to keep it out of sight.
func checkJWKSURL(u string, insecureHTTP bool) error {
	parsed, err := url.Parse(u)
	if err != nil {
		// url.Parse's error quotes the whole string.
		return errors.New("jwt: jwks_url: not a valid URL")
	}
	if parsed.User != nil {
		// Go would send them as basic auth, and every failed fetch would
		// log them; an IdP publishes its JWKS without any.
		return fmt.Errorf("jwt: jwks_url %q: must not contain credentials", redact.URL(parsed))
	}
	if (parsed.Scheme != "https" && parsed.Scheme != "http") || parsed.Host == "" {
		return fmt.Errorf("jwt: jwks_url %q: want an absolute http(s) URL", redact.URL(parsed))
	}
	if secret.CleartextRemote(parsed) && !insecureHTTP {
		return fmt.Errorf("jwt: jwks_url %q: plain http to a host that is not loopback lets anyone on the path substitute the signing keys; use https, or set insecure_http", redact.URL(parsed))
	}
	return nil
}

// Validate checks the options, naming the one at fault.
func (p *Provider) Validate() error {
	if p.JWKSURL == "" && len(p.KeyFiles) == 0 {
		return errors.New("jwt: give jwks_url or at least one key_file")
	}
	for _, a := range p.Algorithms {
		if !slices.Contains(supportedAlgorithms, jose.SignatureAlgorithm(a)) {
			return fmt.Errorf("jwt: algorithms: %q is not allowed (want some of %s)", a, algNames())
		}
	}
	switch p.OrgsFormat {
	case FormatKeycloak, FormatMap, FormatList:
	default:
		return fmt.Errorf("jwt: orgs_claim format %q: want keycloak, map or list", p.OrgsFormat)
	}
	for _, d := range []struct {
		name string
		v    caddy.Duration
	}{
		{"leeway", caddy.Duration(p.leeway)}, {"refresh_interval", p.RefreshInterval},
		{"min_refresh_interval", p.MinRefreshInterval}, {"fetch_timeout", p.FetchTimeout},
	} {
		if d.v < 0 {
			return fmt.Errorf("jwt: %s must not be negative", d.name)
		}
	}
	if p.leeway > 5*time.Minute {
		return errors.New("jwt: leeway over 5m defeats token expiry")
	}
	if p.RefreshInterval < caddy.Duration(time.Second) {
		return errors.New("jwt: refresh_interval must be at least 1s")
	}
	if p.MinRefreshInterval > p.RefreshInterval {
		return errors.New("jwt: min_refresh_interval must not exceed refresh_interval")
	}
	if p.MaxJWKSSize < 0 {
		return errors.New("jwt: max_jwks_size must not be negative")
	}
	for i, a := range p.Audience {
		if strings.TrimSpace(a) == "" {
			return fmt.Errorf("jwt: audience %d is empty", i)
		}
	}
	return nil
}

func algNames() string {
	names := make([]string, len(supportedAlgorithms))
	for i, a := range supportedAlgorithms {
		names[i] = string(a)
	}
	return strings.Join(names, " ")
}

// Cleanup releases the JWKS cache; the last provider to release it stops
// its goroutines. Safe on a partly provisioned provider.
func (p *Provider) Cleanup() error {
	if p.remoteKey == "" {
		return nil
	}
	_, err := remotePool.Delete(p.remoteKey)
	p.remoteKey = ""
	p.remote = nil
	return err
}

// Challenge implements auth.Challenger (RFC 6750 §3).
func (p *Provider) Challenge(err error) string {
	if err == nil {
		return "Bearer"
	}
	var te *TokenError
	if errors.As(err, &te) {
		return fmt.Sprintf(`Bearer error="invalid_token", error_description=%q`, te.Reason)
	}
	return `Bearer error="invalid_token"`
}

// Authenticate implements auth.Provider. A bearer token shaped like a JWS
// (three dot-separated parts) is ours; anything else is left to the next
// provider. A token of ours that fails any check is a *TokenError (401).
func (p *Provider) Authenticate(r *http.Request) (*auth.Principal, error) {
	raw, ok := auth.BearerToken(r)
	if !ok || strings.Count(raw, ".") != 2 {
		return nil, auth.ErrNoCredential
	}
	return p.verify(r, raw)
}

// TokenError is a rejected token. Reason is safe to show to the caller and
// to log: it never holds token content.
type TokenError struct {
	Reason string
	Err    error // underlying cause, for logs
}

func (e *TokenError) Error() string {
	if e.Err != nil {
		return "invalid token: " + e.Reason + ": " + e.Err.Error()
	}
	return "invalid token: " + e.Reason
}

func (e *TokenError) Unwrap() error { return e.Err }

// Interface guards.
var (
	_ caddy.Provisioner  = (*Provider)(nil)
	_ caddy.Validator    = (*Provider)(nil)
	_ caddy.CleanerUpper = (*Provider)(nil)
	_ auth.Provider      = (*Provider)(nil)
	_ auth.Challenger    = (*Provider)(nil)
	_ caddy.Destructor   = (*remoteKeys)(nil)
)
