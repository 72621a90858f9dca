package acapy

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
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
			args := d.RemainingArgs()
			if len(args) != 2 {
				return d.Errf("org_invitation_did: want <org id> <did>|public, got %d arguments", len(args))
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
			return d.Errf("unknown acapy backend option %q", opt)
		}
		if d.NextArg() {
			return d.Errf("%s: unexpected argument %q", opt, d.Val())
		}
	}
	return nil
}
