package acapy

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// UnmarshalCaddyfile reads the backend's block. The dispenser starts at the
// type name, as the handler's `backend <name> acapy [<url>] { ... }` hands
// it over:
//
//	acapy [<url>] {
//		url <admin url>
//		api_key <key>
//		tenant_token <wallet id> <token>
//		fetch_wallet_tokens
//		invitation_did <did>|public
//		org_invitation_did <org id> <did>|public
//		timeout <duration>
//		owner_retention <duration>
//		max_response_size <size>
//		transport http { <reverse_proxy http transport options> }
//	}
func (b *Backend) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return b.UnmarshalBackend(d, func(d *caddyfile.Dispenser, opt string) error {
		switch opt {
		case "api_key":
			if !d.NextArg() {
				return d.ArgErr()
			}
			b.APIKey = d.Val()
		case "fetch_wallet_tokens":
			b.FetchWalletTokens = true
		case "invitation_did":
			if !d.NextArg() {
				return d.ArgErr()
			}
			b.InvitationDID = d.Val()
		case "org_invitation_did":
			return agent.UnmarshalOrgValue(d, &b.OrgInvitationDIDs, "<org id> <did>|public")
		default:
			return d.Errf("unknown acapy backend option %q", opt)
		}
		if d.NextArg() {
			return d.Errf("%s: unexpected argument %q", opt, d.Val())
		}
		return nil
	})
}
