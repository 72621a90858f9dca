package credo

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// UnmarshalCaddyfile reads the backend's block. The dispenser starts at the
// type name, as the handler's `backend <name> credo [<url>] { ... }` hands
// it over:
//
//	credo [<url>] {
//		url <url>
//		token <token>
//		api_key <key>
//		routes default|legacy
//		invitation_did <did>
//		org_invitation_did <org id> <did>
//		tenant_token <tenant id> <token>
//		timeout <duration>
//		owner_retention <duration>
//		max_response_size <size>
//		transport http { <reverse_proxy http transport options> }
//	}
func (b *Backend) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return b.UnmarshalBackend(d, func(d *caddyfile.Dispenser, opt string) error {
		switch opt {
		case "token":
			if !d.NextArg() {
				return d.ArgErr()
			}
			b.Token = d.Val()
		case "api_key":
			if !d.NextArg() {
				return d.ArgErr()
			}
			b.APIKey = d.Val()
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
			return agent.UnmarshalOrgValue(d, &b.OrgInvitationDIDs, "<org id> <did>")
		default:
			return d.Errf("unknown credo backend option %q", opt)
		}
		if d.NextArg() {
			return d.Errf("%s: unexpected argument %q", opt, d.Val())
		}
		return nil
	})
}
