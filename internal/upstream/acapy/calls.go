package acapy

import (
	"context"
	"net/http"
	"net/url"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// do sends req as org: the admin API key always, and for a wallet of a
// multitenant agent that wallet's bearer token.
func (b *Backend) do(ctx context.Context, org backend.Org, req agent.Request) (*agent.Response, error) {
	req.Header = b.keyHeader // read only: Do copies it
	if org.Tenant == "" {
		return b.client.Do(ctx, req)
	}
	return b.client.DoTenant(ctx, req, b.tokens, org.Tenant, func(h http.Header, tok string) {
		h.Set("Authorization", "Bearer "+tok)
	})
}

// fetchWalletToken gets a wallet's token with the admin API key. It is
// safe to repeat: the newest token is the valid one.
func (b *Backend) fetchWalletToken(ctx context.Context, wallet string) (string, error) {
	req := agent.Request{
		Method: http.MethodPost, Path: "/multitenancy/wallet/" + url.PathEscape(wallet) + "/token",
		Header: http.Header{}, Body: map[string]any{}, Idempotent: true,
	}
	b.authorize(req.Header)
	return b.client.FetchToken(ctx, req, "wallet")
}

func recordPath(id string) string {
	return "/present-proof-2.0/records/" + url.PathEscape(id)
}
