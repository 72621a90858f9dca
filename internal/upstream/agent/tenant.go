package agent

import (
	"context"
	"errors"
	"net/http"

	"github.com/proofgate/proofgate/internal/backend"
)

// DoTenant sends req as tenant: set puts the tenant's token into the
// headers. When the agent answers 401 and the token was fetched (not
// configured), the token is renewed and the call repeated once: a 401 is
// decided before the agent acts, so even a create is safe to repeat.
func (c *Client) DoTenant(ctx context.Context, req Request, tokens *Tokens, tenant string, set func(h http.Header, token string)) (*Response, error) {
	for attempt := 0; ; attempt++ {
		tok, err := tokens.Get(ctx, tenant)
		if errors.Is(err, ErrNoToken) {
			return nil, &backend.UpstreamError{Message: "no agent token is configured for the org's tenant"}
		}
		if err != nil {
			return nil, err
		}
		r := req
		// Do calls set on the header map it builds for the call.
		r.credential = func(h http.Header) { set(h, tok) }
		resp, err := c.Do(ctx, r)
		if err != nil {
			return nil, err
		}
		if resp.Status == http.StatusUnauthorized && attempt == 0 && tokens.Renewable(tenant, tok) {
			continue
		}
		return resp, nil
	}
}
