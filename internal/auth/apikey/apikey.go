// Package apikey is the api_key authentication provider: static keys bound
// to orgs, presented as "Authorization: Bearer <key>" or "X-API-Key: <key>".
// Keys are kept only as SHA-256 digests and compared in constant time.
package apikey

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/secret"
)

func init() {
	caddy.RegisterModule(Provider{})
}

// Provider authenticates callers by static API keys.
type Provider struct {
	// Keys are the accepted keys, each bound to the orgs it may act for.
	Keys []Key `json:"keys,omitempty"`

	keys []provisionedKey
}

// Key is one accepted API key.
type Key struct {
	// Key is the key itself, or "sha256:<hex>" for its SHA-256 digest (see
	// `caddy proofgate hash-key`). Placeholders such as {env.PROOFGATE_KEY}
	// or {file./run/secrets/key} are resolved at load time, so the secret
	// need not appear in the config. Plaintext keys must have at least 16
	// characters.
	Key string `json:"key"`

	// Orgs are the org ids the key may act for; "*" means every org.
	Orgs []string `json:"orgs"`

	// Label names the key in logs (the caller's subject). Defaults to the
	// first 8 hex digits of the key's digest, which reveal nothing usable.
	Label string `json:"label,omitempty"`

	// LoopbackDefault is a demo key used when Key resolves to nothing (its
	// {env.*} variable is unset). It is accepted only from callers whose
	// connection comes from a loopback address (the TCP peer, never a
	// forwarding header) and that were not forwarded (no Forwarded,
	// X-Forwarded-For or X-Real-IP: a proxy on this host connects from
	// loopback for callers anywhere), so a demo config that listens on
	// every interface, or sits behind a local proxy, does not open the API
	// to the network.
	LoopbackDefault string `json:"loopback_default,omitempty"`
}

type provisionedKey struct {
	digest       [sha256.Size]byte
	principal    auth.Principal
	loopbackOnly bool
}

// CaddyModule returns the Caddy module information.
func (Provider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "proofgate.auth.providers.api_key",
		New: func() caddy.Module { return new(Provider) },
	}
}

// Provision resolves placeholders and digests every key. It warns once
// per key written in plaintext in the config (Caddy's admin API shows it),
// and when a key falls back to its loopback-only demo default.
func (p *Provider) Provision(ctx caddy.Context) error {
	return p.provision(ctx.Logger())
}

func (p *Provider) provision(logger *zap.Logger) error {
	repl := caddy.NewReplacer()
	p.keys = make([]provisionedKey, 0, len(p.Keys))
	for i, k := range p.Keys {
		resolved, err := repl.ReplaceOrErr(k.Key, false, true)
		if err != nil {
			return fmt.Errorf("api_key %d: %v", i, err)
		}
		loopbackOnly := false
		if resolved == "" {
			if k.LoopbackDefault == "" {
				return fmt.Errorf("api_key %d: %s is empty; set the variable", i, k.Key)
			}
			resolved, loopbackOnly = k.LoopbackDefault, true
		}
		digest, err := parseKey(resolved)
		if err != nil {
			return fmt.Errorf("api_key %d: %v", i, err)
		}
		label := k.Label
		if label == "" {
			label = "key-" + hex.EncodeToString(digest[:4])
		}
		if loopbackOnly {
			logger.Warn("api_key: the key's variable is unset; its demo default is accepted only from loopback callers",
				zap.String("key", k.Key), zap.String("label", label))
		} else if !isDigest(k.Key) {
			secret.WarnLiteral(logger, "api_key "+label, k.Key)
		}
		// The caller is the key itself (its digest's first half): labels
		// are names an operator may give two keys.
		principal := auth.Principal{Subject: "api_key:" + label, Caller: "api_key:" + hex.EncodeToString(digest[:16]), Orgs: map[string][]string{}}
		for _, org := range k.Orgs {
			if org == "*" {
				principal.AllOrgs = true
				continue
			}
			principal.Orgs[org] = nil // bound to the org as a whole: every role
		}
		p.keys = append(p.keys, provisionedKey{digest: digest, principal: principal, loopbackOnly: loopbackOnly})
		// Keep only the digest: a plaintext key written into the config
		// must not linger in this module's memory.
		p.Keys[i].Key = ""
	}
	return nil
}

// Validate checks that every key is bound to at least one org.
func (p *Provider) Validate() error {
	if len(p.Keys) == 0 {
		return errors.New("api_key: no keys configured")
	}
	for i, k := range p.Keys {
		if len(k.Orgs) == 0 {
			return fmt.Errorf("api_key %d: bind the key to at least one org (or \"*\")", i)
		}
		for _, org := range k.Orgs {
			if strings.TrimSpace(org) == "" {
				return fmt.Errorf("api_key %d: empty org id", i)
			}
		}
	}
	for i := range p.keys {
		for j := range i {
			if p.keys[i].digest == p.keys[j].digest {
				return fmt.Errorf("api_key %d: the same key is configured twice (also key %d)", i, j)
			}
		}
	}
	return nil
}

// Authenticate implements auth.Provider. X-API-Key is always ours; a bearer
// token is ours unless it is shaped like a JWT (three dot-separated parts),
// which is left to a jwt provider.
func (p *Provider) Authenticate(r *http.Request) (*auth.Principal, error) {
	presented := auth.Header(r.Header, auth.APIKeyHeader)
	if presented == "" {
		bearer, ok := auth.BearerToken(r)
		if !ok || strings.Count(bearer, ".") == 2 {
			return nil, auth.ErrNoCredential
		}
		presented = bearer
	}
	digest := sha256.Sum256([]byte(presented))
	// Compare with every key, without stopping early, so the time taken does
	// not tell which key (or how many) came close.
	match := -1
	for i := range p.keys {
		if subtle.ConstantTimeCompare(digest[:], p.keys[i].digest[:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		return nil, errInvalidKey
	}
	if p.keys[match].loopbackOnly && (!secret.LoopbackPeer(r.RemoteAddr) || forwarded(r)) {
		return nil, errDemoKeyRemote
	}
	return &p.keys[match].principal, nil
}

// forwarded reports whether a request says it was forwarded: a proxy on
// this host (nginx, a load balancer's agent) connects from loopback on
// behalf of callers anywhere, and the demo key must not reach them. A
// caller who adds such a header only loses the demo key.
func forwarded(r *http.Request) bool {
	h := r.Header
	return h.Get("Forwarded") != "" || h.Get("X-Forwarded-For") != "" || h.Get("X-Real-Ip") != ""
}

// ErrInvalidKey is the error of a presented key that matches none
// configured (the request is answered 401).
var ErrInvalidKey = errors.New("unknown API key")

var (
	errInvalidKey    = ErrInvalidKey
	errDemoKeyRemote = errors.New("the demo API key (loopback_default) is accepted only from loopback callers")
)

// UnmarshalCaddyfile sets up one key from Caddyfile tokens. Syntax:
//
//	api_key <key> [org <org_id...> | org *] [label <label>] [loopback_default <demo key>]
//
// Without "org", the key is refused at load: every key must be bound.
// The proofgate directive merges consecutive api_key lines into one provider.
func (p *Provider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // provider name
	var k Key
	if !d.NextArg() {
		return d.ArgErr()
	}
	k.Key = d.Val()
	args := d.RemainingArgs()
	seen := map[string]bool{}
	for i := 0; i < len(args); {
		opt := args[i]
		if seen[opt] {
			return d.Errf("api_key: %s given twice", opt)
		}
		seen[opt] = true
		i++
		switch opt {
		case "org":
			for i < len(args) && args[i] != "label" && args[i] != "org" && args[i] != "loopback_default" {
				k.Orgs = append(k.Orgs, args[i])
				i++
			}
			if len(k.Orgs) == 0 {
				return d.Err("api_key: org needs at least one org id or *")
			}
		case "label":
			if i >= len(args) {
				return d.Err("api_key: label needs a value")
			}
			k.Label = args[i]
			i++
		case "loopback_default":
			if i >= len(args) {
				return d.Err("api_key: loopback_default needs a value")
			}
			k.LoopbackDefault = args[i]
			i++
		default:
			return d.Errf("api_key: unknown option %q (want org, label or loopback_default)", opt)
		}
	}
	if d.NextBlock(0) {
		return d.Errf("api_key: takes no block (got %q)", d.Val())
	}
	p.Keys = append(p.Keys, k)
	return nil
}

// Interface guards.
var (
	_ caddy.Provisioner     = (*Provider)(nil)
	_ caddy.Validator       = (*Provider)(nil)
	_ auth.Provider         = (*Provider)(nil)
	_ caddyfile.Unmarshaler = (*Provider)(nil)
)

// Distinct checks that no key is in two api_key providers of one chain.
// Consecutive api_key lines form one provider; lines parted by another
// provider form two, where the first to hold a key would decide alone and
// the other's org binding would be silently dead.
func Distinct(chain []auth.Provider) error {
	seen := map[[sha256.Size]byte]int{}
	for i, p := range chain {
		ak, ok := p.(*Provider)
		if !ok {
			continue
		}
		for _, k := range ak.keys {
			if j, dup := seen[k.digest]; dup && j != i {
				return fmt.Errorf("auth providers %d and %d: the same API key is in both (only the first would ever decide); give each key once", j, i)
			}
			seen[k.digest] = i
		}
	}
	return nil
}
