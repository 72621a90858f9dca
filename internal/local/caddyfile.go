package local

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/proofgate/proofgate/internal/anoncreds/registry"
	"github.com/proofgate/proofgate/internal/verify/w3c"
)

// UnmarshalCaddyfile reads the backend's block. The dispenser starts at
// the backend type ("local"), as caddyfile.UnmarshalModule gives it:
//
//	local {
//		public_url       <url>
//		didcomm_endpoint <url>
//		label            <text>
//		cluster
//		allow_private_endpoints [true|false]
//		record_retention <duration>
//		invitation_ttl   <duration>
//		key_encryption_key <{env.NAME}|{file./path}>
//		previous_key_encryption_key <{env.NAME}|{file./path}>   # repeatable
//		storage <module> {
//			<module options>
//		}
//		trusted_issuers  <did|did:web pattern>...
//		jsonld_contexts  <dir>
//		did_resolver     <url>
//		require_domain   [on|off]
//		holder_binding   on|off
//		status_unknown   fail|accept
//		clock_skew       <duration>
//		max_credentials  <n>
//		anoncreds_registry {
//			<see registry.Config.UnmarshalCaddyfile>
//		}
//	}
func (l *Local) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the backend type
	if d.NextArg() {
		return d.Errf("local backend takes no arguments, got %q; options go in its block", d.Val())
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		opt := d.Val()
		if seen[opt] && opt != "trusted_issuers" && opt != "previous_key_encryption_key" {
			return d.Errf("local backend: %s given twice", opt)
		}
		seen[opt] = true
		switch opt {
		case "public_url", "didcomm_endpoint", "label":
			var v string
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			switch opt {
			case "public_url":
				l.PublicURL = v
			case "didcomm_endpoint":
				l.DIDCommEndpoint = v
			default:
				l.Label = v
			}
		case "record_retention", "invitation_ttl":
			var v string
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil || dur <= 0 {
				return d.Errf("local backend: %s: %q is not a positive duration", opt, v)
			}
			if opt == "record_retention" {
				l.RecordRetention = caddy.Duration(dur)
			} else {
				l.InvitationTTL = caddy.Duration(dur)
			}
		case "key_encryption_key", "previous_key_encryption_key":
			var v string
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			if opt == "key_encryption_key" {
				l.KeyEncryptionKey = v
			} else {
				l.PreviousKeyEncryptionKeys = append(l.PreviousKeyEncryptionKeys, v)
			}
		case "cluster":
			if d.NextArg() {
				return d.ArgErr()
			}
			l.Cluster = true
		case "allow_private_endpoints":
			// An optional true|false, so a Caddyfile can take it from the
			// environment: allow_private_endpoints {$VAR:false}.
			l.AllowPrivateEndpoints = true
			if d.NextArg() {
				v, err := strconv.ParseBool(d.Val())
				if err != nil {
					return d.Errf("allow_private_endpoints: %q is not true or false", d.Val())
				}
				l.AllowPrivateEndpoints = v
				if d.NextArg() {
					return d.ArgErr()
				}
			}
		case "anoncreds_registry":
			l.AnonCredsRegistry = new(registry.Config)
			if err := l.AnonCredsRegistry.UnmarshalCaddyfile(d); err != nil {
				return err
			}
		case "storage":
			if !d.NextArg() {
				return d.ArgErr()
			}
			name := d.Val()
			modID := "caddy.storage." + name
			unm, err := caddyfile.UnmarshalModule(d, modID)
			if err != nil {
				return err
			}
			st, ok := unm.(caddy.StorageConverter)
			if !ok {
				return d.Errf("module %s is not a caddy.StorageConverter", modID)
			}
			l.StorageRaw = caddyconfig.JSONModuleObject(st, "module", name, nil)
		default:
			if w3c.IsDirective(opt) {
				if err := l.Options.UnmarshalDirective(d); err != nil {
					return err
				}
				continue
			}
			return d.Errf("local backend: unknown option %q", opt)
		}
	}
	return nil
}
