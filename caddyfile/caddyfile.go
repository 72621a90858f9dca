// Package caddyfile parses the proofgate directive into its JSON config.
//
// Syntax:
//
//	proofgate [<matcher>] {
//		backend <name> <type> {        # repeatable; type: local, credo, acapy
//			...                        # the backend's own options
//		}
//		org <org_id> <backend> [tenant <tenant_id>]   # repeatable
//		default_backend <name>
//		public_url <url>
//		short_url_ttl <duration>
//		idempotency_ttl <duration>     # default 24h
//		max_body_size <size>
//		unknown_fields reject|ignore
//		input_descriptors dif|strict
//		max_recipients <n>
//		email {                        # see internal/mail
//			smtp <host:port> [<username> <password>]
//			from "<Name <addr>>"
//			...
//		}
//		webhook <url> {                # repeatable; see internal/webhook
//			secret <whsec_…>           # e.g. {env.WEBHOOK_SECRET}
//			orgs <org_id...>
//			include_record
//			timeout <duration>
//			allow_private
//		}
//		auth {
//			api_key <key> org <org_id...>|* [label <label>] [loopback_default <demo key>]   # repeatable
//			jwt { ... }
//			caddy { ... }
//			allowed_roles <role...>
//		}
//	}
package caddyfile

import (
	"encoding/json"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"

	"github.com/proofgate/proofgate/internal/auth/apikey"
	"github.com/proofgate/proofgate/internal/config"
	"github.com/proofgate/proofgate/internal/mail"
	"github.com/proofgate/proofgate/internal/validate"
	"github.com/proofgate/proofgate/internal/webhook"
)

// Parse fills c from the tokens of one proofgate directive (d positioned
// before the directive name).
func Parse(d *caddyfile.Dispenser, c *config.Config) error {
	d.Next() // directive name
	if d.NextArg() {
		return d.Errf("proofgate takes no arguments (got %q); its options go in a block", d.Val())
	}
	seen := map[string]bool{}
	once := func(name string) error {
		if seen[name] {
			return d.Errf("cannot re-declare %s", name)
		}
		seen[name] = true
		return nil
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		opt := d.Val()
		switch opt {
		case "backend":
			if err := parseBackend(d, c); err != nil {
				return err
			}
		case "org":
			if err := parseOrg(d, c); err != nil {
				return err
			}
		case "email":
			if err := once(opt); err != nil {
				return err
			}
			c.Email = new(mail.Config)
			if err := c.Email.UnmarshalCaddyfile(d.NewFromNextSegment()); err != nil {
				return err
			}
		case "webhook":
			var w webhook.Config
			if err := w.UnmarshalCaddyfile(d.NewFromNextSegment()); err != nil {
				return err
			}
			c.Webhooks = append(c.Webhooks, w)
		case "auth":
			if err := once(opt); err != nil {
				return err
			}
			a, err := parseAuth(d)
			if err != nil {
				return err
			}
			c.Auth = a
		case "default_backend", "public_url", "unknown_fields", "input_descriptors":
			if err := once(opt); err != nil {
				return err
			}
			v, err := singleArg(d)
			if err != nil {
				return err
			}
			switch opt {
			case "default_backend":
				c.DefaultBackend = v
			case "public_url":
				c.PublicURL = v
			case "unknown_fields":
				if v != "reject" && v != "ignore" {
					return d.Errf("unknown_fields: want reject or ignore, got %q", v)
				}
				c.UnknownFields = v
			case "input_descriptors":
				if v != "dif" && v != "strict" {
					return d.Errf("input_descriptors: want dif or strict, got %q", v)
				}
				c.InputDescriptors = v
			}
		case "short_url_ttl", "idempotency_ttl":
			if err := once(opt); err != nil {
				return err
			}
			v, err := singleArg(d)
			if err != nil {
				return err
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil || dur <= 0 {
				return d.Errf("%s: %q is not a positive duration", opt, v)
			}
			if opt == "short_url_ttl" {
				c.ShortURLTTL = caddy.Duration(dur)
			} else {
				c.IdempotencyTTL = caddy.Duration(dur)
			}
		case "max_body_size":
			if err := once(opt); err != nil {
				return err
			}
			v, err := singleArg(d)
			if err != nil {
				return err
			}
			n, err := humanize.ParseBytes(v)
			if err != nil || n == 0 || n > 1<<40 {
				return d.Errf("max_body_size: %q is not a size (e.g. 1MiB)", v)
			}
			c.MaxBodySize = int64(n)
		case "max_recipients":
			if err := once(opt); err != nil {
				return err
			}
			v, err := singleArg(d)
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 || n > validate.MaxRecipientsLimit {
				return d.Errf("max_recipients: %q is not a number from 1 to %d", v, validate.MaxRecipientsLimit)
			}
			c.MaxRecipients = n
		case "request_log":
			if err := once(opt); err != nil {
				return err
			}
			rl, err := parseRequestLog(d)
			if err != nil {
				return err
			}
			c.RequestLog = rl
		default:
			return d.Errf("unrecognized proofgate option %q", opt)
		}
	}
	return nil
}

// parseRequestLog reads
//
//	request_log {
//		sampling {
//			interval <duration>
//			first <n>
//			thereafter <n>
//		}
//	}
//
// the sampling block as Caddy's log blocks take it.
func parseRequestLog(d *caddyfile.Dispenser) (*config.RequestLog, error) {
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	rl := new(config.RequestLog)
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "sampling":
			if rl.Sampling != nil {
				return nil, d.Err("request_log: cannot re-declare sampling")
			}
			if d.NextArg() {
				return nil, d.ArgErr()
			}
			rl.Sampling = new(config.LogSampling)
			seen := map[string]bool{}
			for inner := d.Nesting(); d.NextBlock(inner); {
				opt := d.Val()
				if seen[opt] {
					// A second would silently replace the first.
					return nil, d.Errf("request_log sampling: cannot re-declare %s", opt)
				}
				seen[opt] = true
				v, err := singleArg(d)
				if err != nil {
					return nil, err
				}
				switch opt {
				case "interval":
					dur, err := caddy.ParseDuration(v)
					if err != nil || dur <= 0 {
						return nil, d.Errf("request_log sampling interval: %q is not a positive duration", v)
					}
					rl.Sampling.Interval = caddy.Duration(dur)
				case "first", "thereafter":
					n, err := strconv.Atoi(v)
					if err != nil || n < 0 {
						return nil, d.Errf("request_log sampling %s: %q is not a whole number", opt, v)
					}
					if opt == "first" {
						rl.Sampling.First = n
					} else {
						rl.Sampling.Thereafter = n
					}
				default:
					return nil, d.Errf("request_log sampling: unrecognized option %q (interval, first, thereafter)", opt)
				}
			}
		default:
			return nil, d.Errf("request_log: unrecognized option %q (sampling)", d.Val())
		}
	}
	return rl, nil
}

// singleArg reads exactly one argument and no block.
func singleArg(d *caddyfile.Dispenser) (string, error) {
	opt := d.Val()
	if !d.NextArg() {
		return "", d.Errf("%s needs a value", opt)
	}
	v := d.Val()
	if d.NextArg() {
		return "", d.Errf("%s takes one value, got also %q", opt, d.Val())
	}
	return v, nil
}

// parseBackend reads: backend <name> <type> { ... }
func parseBackend(d *caddyfile.Dispenser, c *config.Config) error {
	if !d.NextArg() {
		return d.Err("backend needs a name and a type, e.g. backend main local { ... }")
	}
	name := d.Val()
	if !d.NextArg() {
		return d.Errf("backend %s needs a type: local, credo or acapy", name)
	}
	typ := d.Val()
	if _, exists := c.BackendsRaw[name]; exists {
		return d.Errf("cannot re-declare backend %s", name)
	}
	if _, err := caddy.GetModule("proofgate.backends." + typ); err != nil {
		return d.Errf("backend %s: unknown type %q (want local, credo or acapy)", name, typ)
	}
	unm, err := caddyfile.UnmarshalModule(d, "proofgate.backends."+typ)
	if err != nil {
		return err
	}
	if c.BackendsRaw == nil {
		c.BackendsRaw = map[string]json.RawMessage{}
	}
	c.BackendsRaw[name] = caddyconfig.JSONModuleObject(unm, "type", typ, nil)
	return nil
}

// parseOrg reads: org <org_id> <backend> [tenant <tenant_id>]
func parseOrg(d *caddyfile.Dispenser, c *config.Config) error {
	args := d.RemainingArgs()
	if len(args) != 2 && !(len(args) == 4 && args[2] == "tenant") {
		return d.Err("usage: org <org_id> <backend> [tenant <tenant_id>]")
	}
	if _, exists := c.Orgs[args[0]]; exists {
		return d.Errf("cannot re-declare org %s", args[0])
	}
	route := config.OrgRoute{Backend: args[1]}
	if len(args) == 4 {
		route.Tenant = args[3]
	}
	if c.Orgs == nil {
		c.Orgs = map[string]config.OrgRoute{}
	}
	c.Orgs[args[0]] = route
	return nil
}

// parseAuth reads the auth block. Consecutive api_key lines become one
// api_key provider, so each request hashes its key once.
func parseAuth(d *caddyfile.Dispenser) (*config.Auth, error) {
	if d.NextArg() {
		return nil, d.Errf("auth takes no arguments (got %q); providers go in its block", d.Val())
	}
	a := new(config.Auth)
	var keys *apikey.Provider // the api_key provider being extended
	flushKeys := func() {
		if keys != nil {
			a.ProvidersRaw = append(a.ProvidersRaw, caddyconfig.JSONModuleObject(keys, "provider", "api_key", nil))
			keys = nil
		}
	}
	rolesSeen := false
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		if name == "allowed_roles" {
			if rolesSeen {
				return nil, d.Err("cannot re-declare allowed_roles")
			}
			rolesSeen = true
			a.AllowedRoles = d.RemainingArgs()
			if len(a.AllowedRoles) == 0 {
				return nil, d.Err("allowed_roles needs at least one role")
			}
			continue
		}
		if _, err := caddy.GetModule("proofgate.auth.providers." + name); err != nil {
			return nil, d.Errf("auth: unknown provider %q (want api_key, jwt or caddy)", name)
		}
		unm, err := caddyfile.UnmarshalModule(d, "proofgate.auth.providers."+name)
		if err != nil {
			return nil, err
		}
		if k, ok := unm.(*apikey.Provider); ok {
			if keys == nil {
				keys = k
			} else {
				keys.Keys = append(keys.Keys, k.Keys...)
			}
			continue
		}
		flushKeys()
		a.ProvidersRaw = append(a.ProvidersRaw, caddyconfig.JSONModuleObject(unm, "provider", name, nil))
	}
	flushKeys()
	if len(a.ProvidersRaw) == 0 {
		return nil, d.Err("auth needs at least one provider: api_key, jwt or caddy")
	}
	return a, nil
}
