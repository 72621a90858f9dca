package credo

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// Paths of the two layouts. In the default one the tenant is chosen by its
// token; in the legacy one by the last path segment.

func (b *Backend) createPath(tenant string) string {
	switch {
	case !b.legacy:
		return "/didcomm/proofs/create-request-oob"
	case tenant == "":
		return "/proofs/create-request-oob"
	default:
		return "/multi-tenancy/proofs/create-request-oob/" + url.PathEscape(tenant)
	}
}

func (b *Backend) acceptPath(id, tenant string) string {
	switch {
	case !b.legacy:
		return "/didcomm/proofs/" + url.PathEscape(id) + "/accept-presentation"
	case tenant == "":
		return "/proofs/" + url.PathEscape(id) + "/accept-presentation"
	default:
		return "/multi-tenancy/proofs/" + url.PathEscape(id) + "/accept-presentation/" + url.PathEscape(tenant)
	}
}

func (b *Backend) listPath(tenant string) string {
	switch {
	case !b.legacy:
		return "/didcomm/proofs"
	case tenant == "":
		return "/proofs"
	default:
		return "/multi-tenancy/proofs/" + url.PathEscape(tenant)
	}
}

func (b *Backend) getPath(id, tenant string) string {
	switch {
	case !b.legacy:
		return "/didcomm/proofs/" + url.PathEscape(id)
	case tenant == "":
		return "/proofs/" + url.PathEscape(id)
	default:
		return "/multi-tenancy/proofs/" + url.PathEscape(id) + "/" + url.PathEscape(tenant)
	}
}

// formDataPath is the route of a record's format data (Credo's
// getFormatData: the request and presentation attachments). The legacy
// layout's tenant route names the tenant before the record
// (MultiTenancyController's /form-data/:tenantId/:proofRecordId).
func (b *Backend) formDataPath(id, tenant string) string {
	switch {
	case !b.legacy:
		return "/didcomm/proofs/" + url.PathEscape(id) + "/form-data"
	case tenant == "":
		return "/proofs/" + url.PathEscape(id) + "/form-data"
	default:
		return "/multi-tenancy/form-data/" + url.PathEscape(tenant) + "/" + url.PathEscape(id)
	}
}

// oobPath is the route of out-of-band records (GET ?invitationId=, and
// DELETE /{outOfBandId} under it); false in the legacy layout for a
// tenant: its /multi-tenancy routes could list a tenant's out-of-band
// records but had none known to delete one. The legacy dedicated agent's
// is credo-controller's OutOfBandController of then (@Route('/oob'),
// the same calls).
func (b *Backend) oobPath(tenant string) (string, bool) {
	switch {
	case !b.legacy:
		return "/didcomm/oob", true
	case tenant == "":
		return "/oob", true
	default:
		return "", false
	}
}

// do sends req as org: with the agent's own token for a dedicated agent
// and in the legacy layout, else with the org's tenant token.
func (b *Backend) do(ctx context.Context, org backend.Org, req agent.Request) (*agent.Response, error) {
	if b.legacy || org.Tenant == "" {
		return b.asAgent(ctx, req)
	}
	return b.client.DoTenant(ctx, req, b.tokens, org.Tenant, func(h http.Header, tok string) {
		h.Set("Authorization", "Bearer "+tok)
	})
}

// fetchTenantToken asks the agent for a tenant's token with the
// base-wallet token. Its failures never read as "record not found".
func (b *Backend) fetchTenantToken(ctx context.Context, tenant string) (string, error) {
	req := agent.Request{
		Method: http.MethodPost,
		Path:   "/multi-tenancy/get-token/" + url.PathEscape(tenant),
		// Minting a token changes nothing in the agent: safe to repeat.
		Idempotent: true,
	}
	return b.client.FetchTokenVia(ctx, req, "tenant", b.asAgent)
}

// agentTokenKey is the agent's own token in agentTokens.
const agentTokenKey = ""

// asAgent sends req with the agent's own credential: the configured
// token, or the one minted with api_key (renewed once when refused). The
// default layout sends it as a Bearer token, the legacy one as it is.
func (b *Backend) asAgent(ctx context.Context, req agent.Request) (*agent.Response, error) {
	return b.client.DoTenant(ctx, req, b.agentTokens, agentTokenKey, func(h http.Header, tok string) {
		if b.legacy {
			h.Set("Authorization", tok)
			return
		}
		h.Set("Authorization", "Bearer "+tok)
	})
}

// fetchAgentToken mints the agent's token with POST /agent/token, whose
// credential is the raw API key in Authorization (credo-controller
// compares the whole header with the key: "Bearer <key>" gets 401).
func (b *Backend) fetchAgentToken(ctx context.Context, _ string) (string, error) {
	req := agent.Request{
		Method: http.MethodPost, Path: "/agent/token",
		Header:     http.Header{"Authorization": {b.APIKey}},
		Idempotent: true,
	}
	return b.client.FetchToken(ctx, req, "agent")
}

// refused maps the agent's non-2xx answer to a backend error (and logs
// it). A tenant token that the agent refuses because the tenant does not
// exist gets a message saying so: credo-controller issues tokens for any
// id, so a wrong tenant in the org map shows only here, as 401
// {"details":"TenantRecord: record with id … not found."}.
func (b *Backend) refused(org backend.Org, call agent.Request, resp *agent.Response, recordScoped bool) error {
	err := b.client.StatusError(call, resp, recordScoped)
	if resp.Status == http.StatusUnauthorized && org.Tenant != "" && unknownTenant(resp.Body) {
		return &backend.UpstreamError{Status: resp.Status, Message: "the agent does not know the org's tenant; check the org map"}
	}
	return err
}

// unknownTenant tells whether a 401 body is credo-controller's "no such
// tenant" (Askar's RecordNotFoundError for the TenantRecord).
func unknownTenant(body []byte) bool {
	d := agent.Details(body)
	return strings.Contains(d, "TenantRecord") && strings.Contains(d, "not found")
}
