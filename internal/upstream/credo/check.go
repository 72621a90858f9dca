package credo

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
	b.checks = agent.StartChecks(b.client.Logger(), agent.AgentID("credo", b.Base()), orgs, b.CheckOrg)
}

// CheckOrg tells whether the agent serves org: it lists the org's proofs
// for a thread that does not exist (a cheap tenant-scoped call), and when
// the agent refuses, says why in words an operator can act on.
func (b *Backend) CheckOrg(ctx context.Context, org backend.Org) error {
	probe := agent.Request{
		Method: http.MethodGet, Path: b.listPath(org.Tenant),
		Query: url.Values{"threadId": {uuid.NewString()}}, Idempotent: true,
	}
	resp, err := b.do(ctx, org, probe)
	var ue *backend.UpstreamError
	switch {
	case errors.As(err, &ue) && ue.Status == http.StatusNotFound && org.Tenant != "":
		// The tenant's token could not be minted (legacy agents, proxies).
		return fmt.Errorf("the agent has no tenant %s", org.Tenant)
	case err != nil:
		return fmt.Errorf("could not check the org at the agent: %v", err)
	case resp.Status/100 == 2:
		return nil
	}
	refused := b.refused(org, probe, resp, false)
	switch {
	case resp.Status == http.StatusUnauthorized && org.Tenant != "" && unknownTenant(resp.Body):
		return fmt.Errorf("the agent has no tenant %s (it issued a token for it, then refused it: %s)", org.Tenant, agent.ForLog(agent.Details(resp.Body)))
	case resp.Status == http.StatusNotFound && org.Tenant != "" && b.legacy:
		return fmt.Errorf("the agent has no tenant %s", org.Tenant)
	case resp.Status == http.StatusUnauthorized && org.Tenant == "" && b.multiTenant(ctx):
		if org.ID == agent.DefaultOrg {
			return fmt.Errorf("the agent is multi-tenant and its base wallet holds no proofs, yet it is the default backend: orgs without an org line would reach it; map each org to a tenant (org <org id> <backend> tenant <tenant id>) or choose another default_backend")
		}
		return fmt.Errorf("the agent is multi-tenant and its base wallet holds no proofs: give the org a tenant (org %s <backend> tenant <tenant id>)", org.ID)
	case resp.Status == http.StatusUnauthorized:
		return fmt.Errorf("the agent refuses proofgate's token (%s)", agent.ForLog(agent.Details(resp.Body)))
	}
	return fmt.Errorf("the agent answered the check with HTTP %d: %v", resp.Status, refused)
}

// multiTenant tells whether the configured token opens the agent's tenant
// management, i.e. is a multi-tenant agent's base-wallet token: looking up
// a tenant that does not exist then gives 404, where a dedicated agent
// refuses the route with 401.
func (b *Backend) multiTenant(ctx context.Context) bool {
	call := agent.Request{Method: http.MethodGet, Path: "/multi-tenancy/" + uuid.NewString(), Idempotent: true}
	resp, err := b.asAgent(ctx, call)
	return err == nil && resp.Status == http.StatusNotFound
}
