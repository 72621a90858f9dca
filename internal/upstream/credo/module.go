// Package credo is the `credo` backend: it forwards proofgate's two
// operations to a credo-controller (CREDEBL's REST wrapper around Credo),
// dedicated or multi-tenant, in its current /didcomm/... route layout or
// the older /proofs/... one.
package credo

import (
	"fmt"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

func init() {
	caddy.RegisterModule(new(Backend))
}

// Route layouts.
const (
	RoutesDefault = "default" // /didcomm/proofs/..., JWT per tenant (credo-controller ≥ 2.0.0 since 2025-08)
	RoutesLegacy  = "legacy"  // /proofs/... and /multi-tenancy/proofs/...{tenantId}, one static token
)

// Backend forwards to one credo-controller.
type Backend struct {
	agent.Config

	// Token authenticates proofgate to the agent and is sent in the
	// Authorization header. For a dedicated agent it is the agent's token
	// (the JWT of `POST /agent/token`; in the legacy layout the static API
	// key). For a multi-tenant agent it is the base-wallet token: proofgate
	// gets each tenant's token with `POST /multi-tenancy/get-token/{tenantId}`,
	// caches it and renews it once when the agent answers 401 (legacy
	// layout: the token is used as is, with the tenant id in the path).
	// Placeholders are resolved at load; it is never logged. Required
	// unless api_key is given or every tenant has a tenant_token.
	Token string `json:"token,omitempty"`

	// APIKey is the agent's API key (credo-controller's --apiKey), instead
	// of token in the default layout: proofgate then mints the agent's
	// token itself with `POST /agent/token` (the raw key in
	// Authorization), caches it and mints a new one when the agent
	// refuses it. Placeholders are resolved at load; it is never logged.
	APIKey string `json:"api_key,omitempty"`

	// Routes is the agent's route layout: `default` (/didcomm/proofs/...)
	// or `legacy` (/proofs/..., /multi-tenancy/proofs/...). Default: default.
	Routes string `json:"routes,omitempty"`

	// InvitationDID is sent as `invitationDid` when a request wants
	// connection reuse (reuseConnection, true by default), so that wallets
	// that already have a connection with that DID reuse it. Empty: the
	// agent makes a new peer DID per invitation.
	InvitationDID string `json:"invitation_did,omitempty"`

	// OrgInvitationDIDs overrides InvitationDID per org id (on a
	// multi-tenant agent each tenant has its own DIDs).
	OrgInvitationDIDs map[string]string `json:"org_invitation_dids,omitempty"`

	client *agent.Client
	tokens *agent.Tokens
	// agentTokens holds the agent's own token (key ""): configured, or
	// minted with APIKey.
	agentTokens *agent.Tokens
	owners      *agent.Ownership
	legacy      bool
	checks      *agent.Checks
	orphans     *agent.Orphans
	// orphanSweep overrides agent.DefaultOrphanSweep (tests).
	orphanSweep time.Duration
	storage     certmagic.Storage // tests set it; else Caddy's storage
}

// CaddyModule returns the Caddy module information.
func (*Backend) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "proofgate.backends.credo",
		New: func() caddy.Module { return new(Backend) },
	}
}

// Provision resolves secrets, builds the client and the token cache.
func (b *Backend) Provision(ctx caddy.Context) error {
	if err := b.Config.Provision(ctx, &b.Token, &b.APIKey); err != nil {
		return err
	}
	b.Token = strings.TrimPrefix(b.Token, "Bearer ")
	b.legacy = b.Routes == RoutesLegacy
	if b.APIKey != "" && b.Token == "" {
		b.agentTokens = agent.NewTokens(nil, b.fetchAgentToken)
	} else {
		b.agentTokens = agent.NewTokens(map[string]string{agentTokenKey: b.Token}, nil)
	}
	var fetch agent.FetchFunc
	if !b.legacy && (b.Token != "" || b.APIKey != "") {
		fetch = b.fetchTenantToken
	}
	if b.storage == nil {
		b.storage = ctx.Storage()
	}
	parts := b.Connect(ctx, "credo", fetch, b.storage)
	b.client, b.tokens, b.owners = parts.Client, parts.Tokens, parts.Owners
	if err := agent.RegisterMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %v", err)
	}
	b.orphans = agent.NewOrphans(b.storage, agent.AgentID("credo", b.Base()), ctx.Logger())
	b.orphans.Start(b.orphanSweep, b.resolveOrphan)
	return nil
}

// Validate checks the configuration.
func (b *Backend) Validate() error {
	if err := b.Config.Validate(); err != nil {
		return err
	}
	switch b.Routes {
	case "", RoutesDefault, RoutesLegacy:
	default:
		return fmt.Errorf("routes: must be %s or %s, not %q", RoutesDefault, RoutesLegacy, b.Routes)
	}
	if b.Token == "" && b.APIKey == "" && len(b.TenantTokens) == 0 {
		return fmt.Errorf("token or api_key: required (the agent's token, or its API key to mint one)")
	}
	if b.Token != "" && b.APIKey != "" {
		return fmt.Errorf("token and api_key: give one (api_key mints the token)")
	}
	if b.APIKey != "" && b.Routes == RoutesLegacy {
		return fmt.Errorf("api_key: the legacy layout has no token endpoint; give its static key as token")
	}
	if b.Routes == RoutesLegacy && len(b.TenantTokens) > 0 {
		return fmt.Errorf("tenant_token: the legacy layout uses the one token for every tenant")
	}
	for org, did := range b.OrgInvitationDIDs {
		if org == "" || !strings.HasPrefix(did, "did:") {
			return fmt.Errorf("org_invitation_dids: %q → %q is not an org id and a DID", org, did)
		}
	}
	if b.InvitationDID != "" && !strings.HasPrefix(b.InvitationDID, "did:") {
		return fmt.Errorf("invitation_did: %q is not a DID", b.InvitationDID)
	}
	return nil
}

// ValidateTenant tells whether calls for tenant ("" for a dedicated agent)
// can be authenticated, so that the handler can refuse an org map that
// would fail at request time.
func (b *Backend) ValidateTenant(tenant string) error {
	if tenant == "" || b.Token != "" || b.APIKey != "" {
		return nil
	}
	if _, ok := b.TenantTokens[tenant]; ok {
		return nil
	}
	return fmt.Errorf("credo backend: tenant %s has no tenant_token and there is no token to get one with", tenant)
}

// Cleanup stops the org checks and closes idle connections to the agent.
func (b *Backend) Cleanup() error {
	b.checks.Stop()
	if b.orphans != nil {
		b.orphans.Stop()
	}
	return b.Config.Cleanup()
}

// Interface guards.
var (
	_ backend.Backend       = (*Backend)(nil)
	_ caddy.Provisioner     = (*Backend)(nil)
	_ caddy.Validator       = (*Backend)(nil)
	_ caddy.CleanerUpper    = (*Backend)(nil)
	_ caddyfile.Unmarshaler = (*Backend)(nil)
	_ backend.OrgChecker    = (*Backend)(nil)
)
