package agent

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/proofgate/proofgate/internal/backend"
)

// FetchToken sends req, an agent call that mints a tenant's or wallet's
// token (credo-controller's get-token, ACA-Py's wallet token), and returns
// the "token" of its answer. whose names what the token is for ("tenant",
// "wallet") in the message of an agent that does not know it.
func (c *Client) FetchToken(ctx context.Context, req Request, whose string) (string, error) {
	return c.FetchTokenVia(ctx, req, whose, c.Do)
}

// FetchTokenVia is FetchToken with the call sent by send (which adds a
// credential that may need renewing, e.g. DoTenant).
func (c *Client) FetchTokenVia(ctx context.Context, req Request, whose string, send func(context.Context, Request) (*Response, error)) (string, error) {
	resp, err := send(ctx, req)
	if err != nil {
		return "", err
	}
	if resp.Status == http.StatusNotFound {
		_ = c.StatusError(req, resp, false) // logs the agent's answer
		return "", &backend.UpstreamError{Status: resp.Status, Message: "the agent does not know the org's " + whose}
	}
	if resp.Status/100 != 2 {
		return "", c.StatusError(req, resp, false)
	}
	var ans struct {
		Token string `json:"token"`
	}
	if json.Unmarshal(resp.Body, &ans) != nil || ans.Token == "" {
		return "", c.BadAnswer(req, "token answer without token")
	}
	return ans.Token, nil
}
