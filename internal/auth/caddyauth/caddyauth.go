// Package caddyauth is the caddy authentication provider: it trusts the
// identity that an earlier Caddy authentication handler in the same route
// (basic_auth, caddy-security, any http.authentication provider) has set,
// as {http.auth.user.id}, and reads the caller's orgs and roles from that
// user's metadata placeholders.
package caddyauth

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/proofgate/proofgate/internal/auth"
)

func init() {
	caddy.RegisterModule(Provider{})
}

// Defaults of the metadata keys.
const (
	DefaultOrgsKey  = "orgs"
	DefaultRolesKey = "roles"
)

// Provider authenticates callers that Caddy has already authenticated.
//
// The orgs value lists entries separated by commas or spaces, each
// "<orgId>" or "<orgId>:<role>" (repeat an org for several roles). Bare
// org ids get the roles of the roles value (same separators). So
// "6b1e...:verifier, 9f2c...:admin" and orgs "6b1e..." with roles
// "verifier" both work. An authenticator without metadata (basic_auth) can
// be given it with Caddy's map directive, whose destination is
// {http.auth.user.orgs}.
type Provider struct {
	// OrgsKey is the user metadata key holding the caller's orgs, read from
	// the placeholder {http.auth.user.<orgs_key>} (default "orgs").
	OrgsKey string `json:"orgs_key,omitempty"`

	// RolesKey is the user metadata key holding the roles given to bare
	// org ids, read from {http.auth.user.<roles_key>} (default "roles").
	RolesKey string `json:"roles_key,omitempty"`

	orgsPlaceholder  string
	rolesPlaceholder string
}

// CaddyModule returns the Caddy module information.
func (Provider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "proofgate.auth.providers.caddy",
		New: func() caddy.Module { return new(Provider) },
	}
}

// Provision applies the defaults.
func (p *Provider) Provision(caddy.Context) error {
	if p.OrgsKey == "" {
		p.OrgsKey = DefaultOrgsKey
	}
	if p.RolesKey == "" {
		p.RolesKey = DefaultRolesKey
	}
	p.orgsPlaceholder = "http.auth.user." + p.OrgsKey
	p.rolesPlaceholder = "http.auth.user." + p.RolesKey
	return nil
}

// Validate checks that the keys are plain placeholder names.
func (p *Provider) Validate() error {
	for _, k := range []struct{ name, v string }{{"orgs_key", p.OrgsKey}, {"roles_key", p.RolesKey}} {
		if err := checkKey(k.v); err != nil {
			return fmt.Errorf("caddy: %s %q: %v", k.name, k.v, err)
		}
	}
	if p.OrgsKey == "id" || p.RolesKey == "id" {
		return errors.New(`caddy: "id" is the user id, not a metadata key`)
	}
	return nil
}

func checkKey(k string) error {
	if k == "" {
		return errors.New("empty")
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return fmt.Errorf("want letters, digits, _ - or . (a metadata key, not a placeholder)")
		}
	}
	return nil
}

// Authenticate implements auth.Provider. Without a user id set by an
// earlier authentication handler there is no credential of this kind.
// There is never an invalid one either: the handler before us already
// refused bad credentials.
func (p *Provider) Authenticate(r *http.Request) (*auth.Principal, error) {
	repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if !ok {
		return nil, auth.ErrNoCredential
	}
	id, _ := repl.GetString("http.auth.user.id")
	if id == "" {
		return nil, auth.ErrNoCredential
	}
	orgsValue, _ := repl.GetString(p.orgsPlaceholder)
	rolesValue, _ := repl.GetString(p.rolesPlaceholder)
	return &auth.Principal{
		Subject: "caddy:" + id,
		Caller:  "caddy:" + id,
		Orgs:    ParseOrgs(orgsValue, rolesValue),
	}, nil
}

// ParseOrgs reads an orgs value and a roles value (see Provider) into
// org → roles. Roles are never nil: membership alone grants nothing.
func ParseOrgs(orgsValue, rolesValue string) map[string][]string {
	shared := fields(rolesValue)
	out := map[string][]string{}
	for _, e := range fields(orgsValue) {
		org, role, hasRole := strings.Cut(e, ":")
		if org == "" {
			continue
		}
		roles, ok := out[org]
		if !ok {
			roles = []string{}
		}
		if hasRole {
			if role != "" {
				roles = append(roles, role)
			}
		} else {
			roles = append(roles, shared...)
		}
		out[org] = roles
	}
	return out
}

func fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
}

// UnmarshalCaddyfile sets up the provider from Caddyfile tokens. Syntax:
//
//	caddy {
//		orgs_key  <key>   # default orgs:  {http.auth.user.orgs}
//		roles_key <key>   # default roles: {http.auth.user.roles}
//	}
func (p *Provider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // provider name
	if d.NextArg() {
		return d.ArgErr()
	}
	seen := map[string]bool{}
	for d.NextBlock(0) {
		opt := d.Val()
		if seen[opt] {
			return d.Errf("caddy: %s given twice", opt)
		}
		seen[opt] = true
		var dst *string
		switch opt {
		case "orgs_key":
			dst = &p.OrgsKey
		case "roles_key":
			dst = &p.RolesKey
		default:
			return d.Errf("caddy: unknown option %q (want orgs_key or roles_key)", opt)
		}
		if !d.NextArg() {
			return d.ArgErr()
		}
		*dst = d.Val()
		if d.NextArg() {
			return d.ArgErr()
		}
	}
	return nil
}

// Interface guards.
var (
	_ caddy.Provisioner     = (*Provider)(nil)
	_ caddy.Validator       = (*Provider)(nil)
	_ auth.Provider         = (*Provider)(nil)
	_ caddyfile.Unmarshaler = (*Provider)(nil)
)
