package jwt

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"
)

// UnmarshalCaddyfile sets up the provider from Caddyfile tokens. Syntax:
//
//	jwt [<jwks_url>] {
//		jwks_url             <url>
//		key_file             <path>            # repeatable
//		issuer               <iss>
//		audience             <aud...>
//		algorithms           <alg...>          # default RS256
//		leeway               <duration>        # default 30s
//		refresh_interval     <duration>        # default 15m
//		min_refresh_interval <duration>        # default 30s
//		fetch_timeout        <duration>        # default 5s
//		max_jwks_size        <size>            # default 512KiB
//		orgs_claim           <claim> [keycloak|map|list]   # default resource_access keycloak
//		roles_claim          <claim>           # for list; default roles
//		insecure_http                          # allow a plain http jwks_url off loopback
//	}
func (p *Provider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // provider name
	if d.NextArg() {
		p.JWKSURL = d.Val()
		if d.NextArg() {
			return d.ArgErr()
		}
	}
	seen := map[string]bool{}
	for d.NextBlock(0) {
		opt := d.Val()
		if seen[opt] && opt != "key_file" {
			return d.Errf("jwt: %s given twice", opt)
		}
		seen[opt] = true
		switch opt {
		case "jwks_url":
			if p.JWKSURL != "" {
				return d.Err("jwt: jwks_url given twice")
			}
			if err := oneArg(d, &p.JWKSURL); err != nil {
				return err
			}
		case "key_file":
			var f string
			if err := oneArg(d, &f); err != nil {
				return err
			}
			p.KeyFiles = append(p.KeyFiles, f)
		case "issuer":
			if err := oneArg(d, &p.Issuer); err != nil {
				return err
			}
		case "insecure_http":
			if d.NextArg() {
				return d.ArgErr()
			}
			p.InsecureHTTP = true
		case "audience":
			p.Audience = d.RemainingArgs()
			if len(p.Audience) == 0 {
				return d.ArgErr()
			}
		case "algorithms":
			p.Algorithms = d.RemainingArgs()
			if len(p.Algorithms) == 0 {
				return d.ArgErr()
			}
		case "leeway":
			var v caddy.Duration
			if err := durationArg(d, &v, true); err != nil {
				return err
			}
			p.Leeway = &v
		case "refresh_interval":
			if err := durationArg(d, &p.RefreshInterval, false); err != nil {
				return err
			}
		case "min_refresh_interval":
			if err := durationArg(d, &p.MinRefreshInterval, false); err != nil {
				return err
			}
		case "fetch_timeout":
			if err := durationArg(d, &p.FetchTimeout, false); err != nil {
				return err
			}
		case "max_jwks_size":
			var s string
			if err := oneArg(d, &s); err != nil {
				return err
			}
			n, err := humanize.ParseBytes(s)
			if err != nil || n == 0 || n > 1<<30 {
				return d.Errf("jwt: max_jwks_size %q: want a size such as 512KiB", s)
			}
			p.MaxJWKSSize = int64(n)
		case "orgs_claim":
			args := d.RemainingArgs()
			if len(args) < 1 || len(args) > 2 {
				return d.ArgErr()
			}
			p.OrgsClaim = args[0]
			if len(args) == 2 {
				switch args[1] {
				case FormatKeycloak, FormatMap, FormatList:
					p.OrgsFormat = args[1]
				default:
					return d.Errf("jwt: orgs_claim format %q: want keycloak, map or list", args[1])
				}
			}
		case "roles_claim":
			if err := oneArg(d, &p.RolesClaim); err != nil {
				return err
			}
		default:
			return d.Errf("jwt: unknown option %q", opt)
		}
	}
	return nil
}

func oneArg(d *caddyfile.Dispenser, dst *string) error {
	if !d.NextArg() {
		return d.ArgErr()
	}
	*dst = d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	return nil
}

// durationArg reads a duration. Only leeway (a pointer, whose explicit 0
// means none) takes zero: for the others, 0 in JSON is the field left out
// (the default), so written here it would be taken as the default silently.
func durationArg(d *caddyfile.Dispenser, dst *caddy.Duration, zeroOK bool) error {
	opt := d.Val()
	var s string
	if err := oneArg(d, &s); err != nil {
		return err
	}
	v, err := caddy.ParseDuration(s)
	if err != nil {
		return d.Errf("jwt: %s %s: %v", opt, strconv.Quote(s), err)
	}
	if v < 0 && zeroOK {
		return d.Errf("jwt: %s %s: must not be negative", opt, strconv.Quote(s))
	}
	if v <= 0 && !zeroOK {
		return d.Errf("jwt: %s %s: not a positive duration (leave the option out for the default)", opt, strconv.Quote(s))
	}
	*dst = caddy.Duration(v)
	return nil
}

var _ caddyfile.Unmarshaler = (*Provider)(nil)
