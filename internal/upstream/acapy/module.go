// Package acapy is the `acapy` backend: it forwards proofgate's two
// operations to an ACA-Py admin API (present-proof 2.0 and out-of-band),
// single-tenant or multitenant.
package acapy

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/secret"
	"github.com/proofgate/proofgate/internal/ttlcache"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

func init() {
	caddy.RegisterModule(new(Backend))
}

// Backend forwards to one ACA-Py admin API.
type Backend struct {
	agent.Config

	// APIKey is the agent's admin API key (`--admin-api-key`), sent as
	// X-API-Key on every call. Empty when the agent runs
	// `--admin-insecure-mode`. Placeholders are resolved at load; it is
	// never logged.
	APIKey string `json:"api_key,omitempty"`

	// FetchWalletTokens lets proofgate get a multitenant wallet's token
	// with `POST /multitenancy/wallet/{wallet_id}/token` (admin API key)
	// for tenants without a tenant_token, and renew it once when refused.
	// Off by default because ACA-Py then invalidates the wallet's previous
	// token: whatever else uses that wallet's token (the team's own
	// controller, another proofgate instance) is logged out. Prefer
	// tenant_token for wallets that other clients use.
	FetchWalletTokens bool `json:"fetch_wallet_tokens,omitempty"`

	// InvitationDID is used for the invitation's service when a request
	// wants connection reuse (reuseConnection, true by default): a DID
	// (sent as `use_did`, ACA-Py ≥ 1.0) or `public` (`use_public_did`, the
	// wallet's public DID). Empty: an inline did:key service per
	// invitation.
	InvitationDID string `json:"invitation_did,omitempty"`

	// OrgInvitationDIDs overrides InvitationDID per org id.
	OrgInvitationDIDs map[string]string `json:"org_invitation_dids,omitempty"`

	client *agent.Client
	tokens *agent.Tokens
	owners *agent.Ownership
	checks *agent.Checks
	// orphans are the requests proofgate made and could not delete again
	// (orphans.go).
	orphans *agent.Orphans
	// orphanSweep overrides agent.DefaultOrphanSweep (tests).
	orphanSweep time.Duration
	storage     certmagic.Storage // tests set it; else Caddy's storage
	// notReady holds the records an accept found not yet
	// presentation-received (AcceptPresentation).
	notReady *ttlcache.Cache[struct{}]
	// keyHeader holds the admin API key header (authorize), made once:
	// the client only reads a request's headers.
	keyHeader http.Header
}

// CaddyModule returns the Caddy module information.
func (*Backend) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "proofgate.backends.acapy",
		New: func() caddy.Module { return new(Backend) },
	}
}

// Provision resolves secrets, builds the client and the token cache.
func (b *Backend) Provision(ctx caddy.Context) error {
	if err := b.Config.Provision(ctx); err != nil {
		return err
	}
	if err := b.resolveAPIKey(ctx.Logger()); err != nil {
		return err
	}
	var fetch agent.FetchFunc
	if b.FetchWalletTokens {
		fetch = b.fetchWalletToken
	}
	if b.storage == nil {
		b.storage = ctx.Storage()
	}
	parts := b.Connect(ctx, "acapy", fetch, b.storage)
	b.client, b.tokens, b.owners = parts.Client, parts.Tokens, parts.Owners
	b.notReady = ttlcache.New[struct{}](notReadySize, notReadyTTL, 0)
	b.keyHeader = http.Header{}
	b.authorize(b.keyHeader)
	if err := agent.RegisterMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %v", err)
	}
	b.orphans = agent.NewOrphans(b.storage, agent.AgentID("acapy", b.Base()), ctx.Logger())
	b.orphans.Start(b.orphanSweep, b.resolveOrphan)
	return nil
}

// resolveAPIKey warns once when the admin API key is written literally in
// the config, as Config.Provision does for the other secrets, and resolves
// its placeholders. It is not given to Config.Provision because it may
// resolve to nothing ({env.KEY} unset): an agent in --admin-insecure-mode
// takes none, and none is sent.
func (b *Backend) resolveAPIKey(logger *zap.Logger) error {
	secret.WarnLiteral(logger, "api_key", b.APIKey)
	key, err := caddy.NewReplacer().ReplaceOrErr(b.APIKey, false, true)
	if err != nil {
		return fmt.Errorf("api_key: %v", err)
	}
	if key == "" && b.APIKey != "" {
		// Said, since a mistyped variable would otherwise show only as
		// every call refused.
		logger.Warn("api_key resolves to nothing: no key is sent to the agent (right for an agent in --admin-insecure-mode; any other refuses every call)",
			zap.String("api_key", b.APIKey)) // the placeholder, not a secret
	}
	b.APIKey = key
	return nil
}

// Validate checks the configuration.
func (b *Backend) Validate() error {
	if err := b.Config.Validate(); err != nil {
		return err
	}
	check := func(opt, did string) error {
		if did != "public" && !strings.HasPrefix(did, "did:") {
			return fmt.Errorf("%s: %q is neither a DID nor public", opt, did)
		}
		return nil
	}
	if b.InvitationDID != "" {
		if err := check("invitation_did", b.InvitationDID); err != nil {
			return err
		}
	}
	for org, did := range b.OrgInvitationDIDs {
		if org == "" {
			return fmt.Errorf("org_invitation_dids: empty org id")
		}
		if err := check("org_invitation_dids "+org, did); err != nil {
			return err
		}
	}
	return nil
}

// ValidateTenant tells whether calls for tenant (a wallet id; "" for the
// base wallet) can be authenticated, so that the handler can refuse an org
// map that would fail at request time.
func (b *Backend) ValidateTenant(tenant string) error {
	if tenant == "" {
		return nil
	}
	if _, ok := b.TenantTokens[tenant]; ok || b.FetchWalletTokens {
		return nil
	}
	return fmt.Errorf("acapy backend: wallet %s has no tenant_token and fetch_wallet_tokens is off", tenant)
}

// Cleanup stops the org checks and closes idle connections to the agent.
func (b *Backend) Cleanup() error {
	b.checks.Stop()
	if b.orphans != nil {
		b.orphans.Stop()
	}
	return b.Config.Cleanup()
}

// authorize puts the admin API key into h.
func (b *Backend) authorize(h http.Header) {
	if b.APIKey != "" {
		h.Set("X-API-Key", b.APIKey)
	}
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
