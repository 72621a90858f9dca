package credo

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// UnmarshalCaddyfile reads the backend's block. The dispenser starts at the
// type name, as the handler's `backend <name> credo [<url>] { ... }` hands
// it over:
//
//	credo [<url>] {
//		url <url>
//		token <token>
//		routes default|legacy
//		invitation_did <did>
//		org_invitation_did <org id> <did>
//		tenant_token <tenant id> <token>
//		timeout <duration>
//		max_response_size <size>
//		transport http { <reverse_proxy http transport options> }
//	}
func (b *Backend) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the type name
	if d.NextArg() {
		b.URL = d.Val()
	}
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		if ok, err := b.UnmarshalCaddyfileOption(d); ok {
			if err != nil {
				return err
			}
			continue
		}
		opt := d.Val()
		switch opt {
		case "token":
			if !d.NextArg() {
				return d.ArgErr()
			}
			b.Token = d.Val()
		case "routes":
			if !d.NextArg() {
				return d.ArgErr()
			}
			b.Routes = d.Val()
			if b.Routes != RoutesDefault && b.Routes != RoutesLegacy {
				return d.Errf("routes: must be %s or %s, not %q", RoutesDefault, RoutesLegacy, b.Routes)
			}
		case "invitation_did":
			if !d.NextArg() {
				return d.ArgErr()
			}
			b.InvitationDID = d.Val()
		case "org_invitation_did":
			args := d.RemainingArgs()
			if len(args) != 2 {
				return d.Errf("org_invitation_did: want <org id> <did>, got %d arguments", len(args))
			}
			if b.OrgInvitationDIDs == nil {
				b.OrgInvitationDIDs = map[string]string{}
			}
			if _, dup := b.OrgInvitationDIDs[args[0]]; dup {
				return d.Errf("org_invitation_did: org %s given twice", args[0])
			}
			b.OrgInvitationDIDs[args[0]] = args[1]
			continue
		default:
			return d.Errf("unknown credo backend option %q", opt)
		}
		if d.NextArg() {
			return d.Errf("%s: unexpected argument %q", opt, d.Val())
		}
	}
	return nil
}
