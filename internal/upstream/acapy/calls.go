package acapy

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// do sends req as org: the admin API key always, and for a wallet of a
// multitenant agent that wallet's bearer token.
func (b *Backend) do(ctx context.Context, org backend.Org, req agent.Request) (*agent.Response, error) {
	req.Header = http.Header{}
	b.authorize(req.Header)
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
	resp, err := b.client.Do(ctx, req)
	if err != nil {
		return "", err
	}
	if resp.Status == http.StatusNotFound {
		_ = b.client.StatusError(req, resp, false)
		return "", &backend.UpstreamError{Status: resp.Status, Message: "the agent does not know the org's wallet"}
	}
	if resp.Status/100 != 2 {
		return "", b.client.StatusError(req, resp, false)
	}
	var ans struct {
		Token string `json:"token"`
	}
	if json.Unmarshal(resp.Body, &ans) != nil || ans.Token == "" {
		return "", b.client.BadAnswer(req, "wallet token answer without token")
	}
	return ans.Token, nil
}

func recordPath(id string) string {
	return "/present-proof-2.0/records/" + url.PathEscape(id)
}
