package agent

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	"github.com/caddyserver/certmagic"
	"github.com/dustin/go-humanize"

	"github.com/proofgate/proofgate/internal/ownerlog"
	"github.com/proofgate/proofgate/internal/redact"
	"github.com/proofgate/proofgate/internal/secret"
)

// Config is what every upstream backend module is configured with. The
// modules embed it, so its fields sit beside their own in JSON.
type Config struct {
	// URL is the agent's base URL, http or https, with an optional path
	// prefix: `http://127.0.0.1:3000`. Placeholders such as `{env.AGENT_URL}`
	// are resolved at load.
	URL string `json:"url,omitempty"`

	// Timeout bounds each call to the agent; an agent slower than this
	// gets a 504. Default: 15s.
	Timeout caddy.Duration `json:"timeout,omitempty"`

	// MaxResponseSize caps how many bytes of one agent answer are read; a
	// larger answer is a 502. Default: 4 MiB.
	MaxResponseSize int64 `json:"max_response_size,omitempty"`

	// TenantTokens are per-tenant tokens for a multi-tenant agent, keyed by
	// the tenant id used in the org map (credo-controller tenant id, ACA-Py
	// wallet id). A tenant listed here is never fetched from the agent.
	// Placeholders (`{env.*}`, `{file.*}`) are resolved at load; tokens are
	// never logged.
	TenantTokens map[string]string `json:"tenant_tokens,omitempty"`

	// Transport configures the connections to the agent exactly as
	// reverse_proxy's `transport http` does: TLS trust (`tls_trust_pool`,
	// `tls_insecure_skip_verify`), client certificates (`tls_client_auth`),
	// `dial_timeout`, keep-alive and pool sizes. Default: Caddy's defaults,
	// with TLS when url is https.
	Transport *reverseproxy.HTTPTransport `json:"transport,omitempty"`

	// OwnerRetention is how long proofgate remembers which org created each
	// record it created through this agent, counted from the creation:
	// afterwards an accept of that record is authorized as for a record
	// made on the agent directly (only where the org has the agent or a
	// tenant of it to itself; otherwise 404). Owners are held in memory
	// (about 55 bytes a record), so this bounds that memory and the
	// storage. At least 2h. Default: 0, keep every owner. Backends sharing
	// a storage share the owners: they are kept as long as the longest
	// retention among them asks, and forever while one keeps them all.
	OwnerRetention caddy.Duration `json:"owner_retention,omitempty"`

	// InsecureHTTP allows a plain http url to a host that is not loopback.
	// Off by default: the agent's token, API key and every proof request
	// and presentation would cross the network in clear text.
	InsecureHTTP bool `json:"insecure_http,omitempty"`

	base *url.URL
	// owners is what Connect opened, closed by Cleanup.
	owners *Ownership
	// agent is the AgentID Connect noted in agentsInUse, released by
	// Cleanup.
	agent string
	// identity is what AgentIdentity answers, set by Connect.
	identity string
}

// Provision resolves placeholders and builds the transport. secrets are
// the module's own secret fields, resolved in place.
func (c *Config) Provision(ctx caddy.Context, secrets ...*string) error {
	repl := caddy.NewReplacer()
	var err error
	if c.URL, err = repl.ReplaceOrErr(c.URL, true, true); err != nil {
		return fmt.Errorf("url: %v", err)
	}
	for _, s := range secrets {
		secret.WarnLiteral(ctx.Logger(), "agent token or API key", *s)
		if *s, err = repl.ReplaceOrErr(*s, true, true); err != nil {
			return fmt.Errorf("resolving a token placeholder: %v", err)
		}
	}
	for k, v := range c.TenantTokens {
		secret.WarnLiteral(ctx.Logger(), "tenant_token "+k, v)
		if c.TenantTokens[k], err = repl.ReplaceOrErr(v, true, true); err != nil {
			return fmt.Errorf("tenant_tokens %s: %v", k, err)
		}
	}
	if c.base, err = parseBase(c.URL); err != nil {
		return err
	}
	if secret.CleartextRemote(c.base) && !c.InsecureHTTP {
		return fmt.Errorf("url: plain http to %s, which is not loopback, would send the agent's credentials and the proof data in clear text; use https, or set insecure_http", c.base.Host)
	}
	if c.Transport == nil {
		c.Transport = new(reverseproxy.HTTPTransport)
	}
	if c.base.Scheme == "https" && c.Transport.TLS == nil {
		c.Transport.TLS = new(reverseproxy.TLSConfig)
	}
	if err := c.Transport.Provision(ctx); err != nil {
		return fmt.Errorf("transport: %v", err)
	}
	return nil
}

// Validate checks the shared options; module Validate methods call it.
func (c *Config) Validate() error {
	if _, err := parseBase(c.URL); err != nil {
		return err
	}
	if c.Timeout < 0 {
		return fmt.Errorf("timeout: must not be negative")
	}
	if c.MaxResponseSize < 0 {
		return fmt.Errorf("max_response_size: must not be negative")
	}
	if c.OwnerRetention != 0 && time.Duration(c.OwnerRetention) < ownerlog.MinRetention {
		return fmt.Errorf("owner_retention: %v is shorter than the minimum, %v (0 keeps every owner)", time.Duration(c.OwnerRetention), ownerlog.MinRetention)
	}
	for k, v := range c.TenantTokens {
		if k == "" || v == "" {
			return fmt.Errorf("tenant_tokens: tenant id and token must not be empty")
		}
	}
	return nil
}

// Cleanup closes the transport's idle connections and the ownership
// store, and removes the agent's metric series if no loaded config calls
// it any more.
func (c *Config) Cleanup() error {
	if c.agent != "" {
		releaseAgent(c.agent)
		c.agent = ""
	}
	if c.owners != nil {
		c.owners.Close()
		c.owners = nil
	}
	if c.Transport != nil && c.Transport.Transport != nil {
		return c.Transport.Cleanup()
	}
	return nil
}

// Base returns the parsed URL after Provision.
func (c *Config) Base() *url.URL { return c.base }

// TimeoutOrDefault returns the call timeout.
func (c *Config) TimeoutOrDefault() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return time.Duration(c.Timeout)
}

// Detached is a context of its own bounded by the call timeout, for a
// call that cleans up after a request that failed: the request's own
// context may be what ran out.
func (c *Config) Detached() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), c.TimeoutOrDefault())
}

func parseBase(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, fmt.Errorf("url: required")
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse's error quotes the whole URL, which may come from
		// {env.*} and hold credentials.
		return nil, fmt.Errorf("url: not a valid URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("url: scheme must be http or https, not %q", u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("url: no host in %q", redact.URL(u))
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("url: must not have credentials, query or fragment")
	}
	return u, nil
}

// UnmarshalCaddyfileOption parses one shared option at the dispenser's
// current token and reports whether it was one:
//
//	url <url>
//	timeout <duration>
//	max_response_size <size>
//	owner_retention <duration>
//	tenant_token <tenant id> <token>
//	insecure_http
//	transport http { <reverse_proxy http transport options> }
func (c *Config) UnmarshalCaddyfileOption(d *caddyfile.Dispenser) (bool, error) {
	name := d.Val()
	switch name {
	case "url":
		if !d.NextArg() {
			return true, d.ArgErr()
		}
		c.URL = d.Val()
	case "timeout":
		if err := positiveDurationArg(d, &c.Timeout); err != nil {
			return true, err
		}
	case "max_response_size":
		if !d.NextArg() {
			return true, d.ArgErr()
		}
		n, err := humanize.ParseBytes(d.Val())
		if err != nil || n > 1<<40 {
			return true, d.Errf("max_response_size: invalid size %q", d.Val())
		}
		if n == 0 {
			// 0 in JSON is the option left out: written here, it would
			// mean the default silently.
			return true, d.Errf("max_response_size: 0 is not a size (leave the option out for the default)")
		}
		c.MaxResponseSize = int64(n)
	case "owner_retention":
		if err := positiveDurationArg(d, &c.OwnerRetention); err != nil {
			return true, err
		}
	case "tenant_token":
		args := d.RemainingArgs()
		if len(args) != 2 {
			return true, d.Errf("tenant_token: want <tenant id> <token>, got %d arguments", len(args))
		}
		if c.TenantTokens == nil {
			c.TenantTokens = map[string]string{}
		}
		if _, dup := c.TenantTokens[args[0]]; dup {
			return true, d.Errf("tenant_token: tenant %s given twice", args[0])
		}
		c.TenantTokens[args[0]] = args[1]
	case "insecure_http":
		c.InsecureHTTP = true
	case "transport":
		if !d.NextArg() {
			return true, d.ArgErr()
		}
		if d.Val() != "http" {
			return true, d.Errf("transport: only http is supported, not %q", d.Val())
		}
		if c.Transport != nil {
			return true, d.Err("transport: given twice")
		}
		t := new(reverseproxy.HTTPTransport)
		if err := t.UnmarshalCaddyfile(d.NewFromNextSegment()); err != nil {
			return true, err
		}
		c.Transport = t
	default:
		return false, nil
	}
	if d.NextArg() {
		return true, d.Errf("%s: unexpected argument %q", name, d.Val())
	}
	return true, nil
}

// durationArg reads the option's one duration argument (Caddy's syntax,
// `d` for days included) into dst.
func durationArg(d *caddyfile.Dispenser, dst *caddy.Duration) error {
	name := d.Val()
	if !d.NextArg() {
		return d.ArgErr()
	}
	dur, err := caddy.ParseDuration(d.Val())
	if err != nil {
		return d.Errf("%s: %v", name, err)
	}
	*dst = caddy.Duration(dur)
	return nil
}

// positiveDurationArg is durationArg refusing 0 and less: 0 in JSON is the
// option left out (the default), so written here it would mean the
// default silently.
func positiveDurationArg(d *caddyfile.Dispenser, dst *caddy.Duration) error {
	name := d.Val()
	if err := durationArg(d, dst); err != nil {
		return err
	}
	if *dst <= 0 {
		return d.Errf("%s: not a positive duration (leave the option out for the default)", name)
	}
	return nil
}

// AgentID names an agent in ownership documents and logs.
func AgentID(kind string, base *url.URL) string {
	return kind + " " + strings.TrimSuffix(base.Redacted(), "/")
}

// AgentIdentity names the agent a provisioned backend calls (Identity of
// its kind and url), the same for every backend block that names that
// agent: the handler decides from it which orgs have an agent's wallet,
// or a tenant of it, to themselves. "" before Provision.
func (c *Config) AgentIdentity() string { return c.identity }

// Identity names the agent of kind at base, with base normalized so that
// spellings of one URL are one agent: scheme and host in lower case, a
// host's final dot, the scheme's default port and trailing slashes
// dropped. Other names of one host (an IP address for a name, localhost
// for 127.0.0.1) are not recognised.
func Identity(kind string, base *url.URL) string {
	scheme := strings.ToLower(base.Scheme)
	host := strings.TrimSuffix(strings.ToLower(base.Hostname()), ".")
	port := base.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	switch {
	case port != "":
		host = net.JoinHostPort(host, port)
	case strings.Contains(host, ":"):
		host = "[" + host + "]" // IPv6
	}
	return kind + " " + scheme + "://" + host + strings.TrimRight(base.EscapedPath(), "/")
}

// keyedOptions may be given once per key (a tenant, an org), each checking
// its keys itself; every other backend option is given once.
var keyedOptions = map[string]bool{"tenant_token": true, "org_invitation_did": true}

// UnmarshalBackend reads a backend's Caddyfile tokens, `<type> [<url>] {
// ... }`: the dispenser starts at the type name, as the handler's
// `backend <name> <type> [<url>] { ... }` hands it over. Shared options are
// parsed here; every other option is given to own, positioned on its name.
// An option given twice is refused, as the handler refuses its own,
// rather than the last silently winning: a block naming two agents, or
// two tokens, is a mistake, and the operator must say which. The url
// after the type counts as url.
func (c *Config) UnmarshalBackend(d *caddyfile.Dispenser, own func(d *caddyfile.Dispenser, option string) error) error {
	d.Next() // the type name
	kind := d.Val()
	seen := map[string]bool{}
	inlineURL := d.NextArg()
	if inlineURL {
		c.URL = d.Val()
	}
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		opt := d.Val()
		if opt == "url" && inlineURL {
			return d.Errf("%s backend: cannot re-declare url: it is given after the backend type already", kind)
		}
		if seen[opt] && !keyedOptions[opt] {
			return d.Errf("%s backend: cannot re-declare %s", kind, opt)
		}
		seen[opt] = true
		if ok, err := c.UnmarshalCaddyfileOption(d); ok {
			if err != nil {
				return err
			}
			continue
		}
		if err := own(d, opt); err != nil {
			return err
		}
	}
	return nil
}

// UnmarshalOrgValue reads `<option> <org id> <value>` into m, refusing an
// org given twice (org_invitation_did).
func UnmarshalOrgValue(d *caddyfile.Dispenser, m *map[string]string, usage string) error {
	option := d.Val()
	args := d.RemainingArgs()
	if len(args) != 2 {
		return d.Errf("%s: want %s, got %d arguments", option, usage, len(args))
	}
	if *m == nil {
		*m = map[string]string{}
	}
	if _, dup := (*m)[args[0]]; dup {
		return d.Errf("%s: org %s given twice", option, args[0])
	}
	(*m)[args[0]] = args[1]
	return nil
}

// Parts are what every upstream backend builds from its Config in
// Provision: the HTTP client, the tenant token cache and the record
// ownership store.
type Parts struct {
	Client *Client
	Tokens *Tokens
	Owners *Ownership
}

// Connect builds the Parts of a provisioned Config for an agent of kind
// ("credo", "acapy"). fetch mints missing tenant tokens (nil: configured
// tokens only); storage holds ownership documents.
func (c *Config) Connect(ctx caddy.Context, kind string, fetch FetchFunc, storage certmagic.Storage) Parts {
	client := NewClient(c.Base(), c.Transport, c.TimeoutOrDefault(), c.MaxResponseSize, ctx.Logger())
	client.agent = AgentID(kind, c.Base())
	c.identity = Identity(kind, c.Base())
	if c.agent == "" {
		c.agent = client.agent
		useAgent(c.agent)
	}
	c.owners = NewOwnership(storage, client.agent, time.Duration(c.OwnerRetention), ctx.Logger())
	return Parts{
		Client: client,
		Tokens: NewTokens(c.TenantTokens, fetch),
		Owners: c.owners,
	}
}
