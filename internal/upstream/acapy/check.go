package acapy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// CheckOrgs implements backend.OrgChecker: each org is checked once, in
// the background, with CheckOrg.
func (b *Backend) CheckOrgs(orgs []backend.Org) {
	b.checks.Stop()
	b.checks = agent.StartChecks(b.client.Logger(), agent.AgentID("acapy", b.Base()), orgs, b.CheckOrg)
}

// CheckOrg tells whether the agent serves org: it lists the org's
// presentation exchanges for a thread that does not exist (a cheap
// wallet-scoped call), and when the agent refuses, says why.
func (b *Backend) CheckOrg(ctx context.Context, org backend.Org) error {
	probe := agent.Request{
		Method: http.MethodGet, Path: "/present-proof-2.0/records",
		Query: url.Values{"thread_id": {uuid.NewString()}}, Idempotent: true,
	}
	resp, err := b.do(ctx, org, probe)
	var ue *backend.UpstreamError
	switch {
	case errors.As(err, &ue) && ue.Status == http.StatusNotFound && org.Tenant != "":
		return fmt.Errorf("the agent has no wallet %s", org.Tenant)
	case err != nil:
		return fmt.Errorf("could not check the org at the agent: %v", err)
	case resp.Status/100 == 2:
		return nil
	}
	refused := b.client.StatusError(probe, resp, false)
	switch {
	case resp.Status == http.StatusUnauthorized && org.Tenant != "":
		return fmt.Errorf("the agent refuses the token of wallet %s (a stale tenant_token, or a newer token minted by another client): %s", org.Tenant, agent.ForLog(agent.Message(resp.Body)))
	case resp.Status == http.StatusUnauthorized:
		return fmt.Errorf("the agent refuses proofgate's api_key: %s", agent.ForLog(agent.Message(resp.Body)))
	}
	return fmt.Errorf("the agent answered the check with HTTP %d: %v", resp.Status, refused)
}
