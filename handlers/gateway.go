// Package handlers serves proofgate's operations over HTTP: request
// decoding and validation, authentication and org-scoped authorization,
// the call into a backend, and the JSON envelopes of successes and errors.
// It knows nothing of Caddy's configuration; the module wires it.
package handlers

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/idempotency"
	"github.com/proofgate/proofgate/internal/metrics"
	"github.com/proofgate/proofgate/internal/shorturl"
	"github.com/proofgate/proofgate/internal/validate"
)

// Gateway holds what the operations need. It is immutable after setup and
// safe for concurrent use.
type Gateway struct {
	Logger       *zap.Logger
	Auth         auth.Chain
	AllowedRoles []string
	Validator    *validate.Validator
	Backends     Router
	ShortURLs    *shorturl.Service
	// ShortURLBase is the prefix of short URLs: <public_url>/url/.
	ShortURLBase string
	MaxBodySize  int64
	// BodyTimeout bounds the time a request body may take to arrive
	// (bodyread.DefaultTimeout when 0).
	BodyTimeout time.Duration
	// Mail queues invitation e-mails; nil when no email block is set.
	Mail Mailer
	// Changes hears of proof records' state changes (webhooks, Caddy
	// events); nil when nothing listens.
	Changes backend.ChangeSink
	// Observed remembers agents' records' last seen states; nil: reads
	// report nothing.
	Observed StateMemory
	// Idempotency keeps the answers of creates sent with an
	// Idempotency-Key; nil turns the header off.
	Idempotency *idempotency.Store
}

// Router says which backend serves an org.
type Router interface {
	// Route returns the backend serving orgID and the org as that backend
	// knows it (with its tenant), or false if no backend serves it.
	Route(orgID string) (backend.Backend, backend.Org, bool)
	// All returns every configured backend, each once.
	All() []backend.Backend
	// Exclusive reports whether orgID has its backend's agent, or a tenant
	// of it, to itself: only then does "the agent holds this record" prove
	// that the org owns it.
	Exclusive(orgID string) bool
	// Orgs returns the org ids routed explicitly.
	Orgs() []string
}

// maxOwnershipQueries bounds how many agents one accept may ask about a
// record proofgate has not seen, so a caller of many orgs cannot turn one
// request into a storm of agent calls.
const maxOwnershipQueries = 16

// authenticate runs the provider chain; on failure it has answered 401.
func (g *Gateway) authenticate(w http.ResponseWriter, r *http.Request) (*auth.Principal, bool) {
	p, challenge, err := g.Auth.Authenticate(r)
	if err != nil {
		metrics.AuthFailure(authFailureReason(err))
	}
	if errors.Is(err, auth.ErrUnavailable) {
		g.Logger.Warn("credentials cannot be checked", zap.Error(err))
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, "credentials cannot be checked now; try again later")
		return nil, false
	}
	if err != nil {
		// Why, at debug level: the answer itself says only 401, and the
		// credential is never logged, only where it was.
		if c := g.Logger.Check(zap.DebugLevel, "authentication failed"); c != nil {
			reason := err.Error()
			if errors.Is(err, auth.ErrNoCredential) {
				reason = "no credentials"
			}
			c.Write(zap.String("reason", reason), zap.String("presented", credentialKind(r)), zap.String("remote", r.RemoteAddr))
		}
		writeUnauthorized(w, challenge)
		return nil, false
	}
	return p, true
}

// credentialKind names where a request carries a credential, for logs:
// the header and scheme, never the value.
func credentialKind(r *http.Request) string {
	var kinds []string
	if auth.Header(r.Header, auth.APIKeyHeader) != "" {
		kinds = append(kinds, "X-API-Key")
	}
	if a := auth.Header(r.Header, "Authorization"); a != "" {
		// Only a scheme known to be one is named: a client that forgot
		// the scheme (or split it with a tab) sends its secret first.
		scheme, _, _ := strings.Cut(a, " ")
		if i := slices.IndexFunc(authSchemes, func(s string) bool { return strings.EqualFold(s, scheme) }); i >= 0 {
			kinds = append(kinds, "Authorization "+authSchemes[i])
		} else {
			kinds = append(kinds, "Authorization (unrecognized scheme)")
		}
	}
	if len(kinds) == 0 {
		return "none"
	}
	return strings.Join(kinds, ", ")
}

// authSchemes are the HTTP authentication schemes a log may name (IANA's
// registry, as clients send them).
var authSchemes = []string{"Basic", "Bearer", "Digest", "DPoP", "HOBA", "Mutual", "Negotiate", "OAuth", "SCRAM-SHA-1", "SCRAM-SHA-256", "vapid"}

// findRecord finds which org owns the record: first from what the backends
// remember of the records made through proofgate, then by asking the agents
// of the caller's own orgs (for requests made on an agent directly). A
// record found neither way is ErrNotFound. The org comes with the tenant
// the record was made on where the backend remembers it (an org since
// moved elsewhere); else the tenant is "" and the caller takes the org's
// routing.
func (g *Gateway) findRecord(ctx context.Context, p *auth.Principal, recordID string) (backend.Backend, backend.Org, error) {
	for _, b := range g.Backends.All() {
		owner, err := recordOwner(ctx, b, recordID)
		if errors.Is(err, backend.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, backend.Org{}, err
		}
		if maker := g.agentNamed(owner.Agent); maker != nil {
			return maker, owner.Org, nil
		}
		return g.servingBackend(ctx, b, owner.ID, recordID), owner.Org, nil
	}

	var firstErr error
	queries := 0
	for _, orgID := range g.candidateOrgs(p) {
		b, org, ok := g.Backends.Route(orgID)
		checker, canAsk := b.(backend.RecordOwnershipChecker)
		if !ok || !canAsk || !g.Backends.Exclusive(orgID) {
			continue
		}
		if queries++; queries > maxOwnershipQueries {
			break
		}
		owns, err := checker.RecordOrgIn(ctx, org, recordID)
		if err != nil {
			// One agent being down must not hide a record another holds.
			if firstErr == nil && !errors.Is(err, backend.ErrNotFound) {
				firstErr = err
			}
			continue
		}
		if owns {
			return b, backend.Org{ID: orgID}, nil
		}
	}
	if firstErr != nil {
		return nil, backend.Org{}, firstErr
	}
	return nil, backend.Org{}, backend.ErrNotFound
}

// recordOwner asks b which org made record id, with the tenant and agent
// where b remembers them.
func recordOwner(ctx context.Context, b backend.Backend, id string) (backend.Owner, error) {
	if f, ok := b.(backend.RecordOwnerFinder); ok {
		return f.RecordOwner(ctx, id)
	}
	org, err := b.RecordOrg(ctx, id)
	return backend.Owner{Org: backend.Org{ID: org}}, err
}

// agentNamed returns the backend that calls the agent a record's owner
// names (agent backends share what they remember, so the one that found
// the owner need not be it), or nil when none does (the owner names none,
// or the agent's url changed since).
func (g *Gateway) agentNamed(agent string) backend.Backend {
	if agent == "" {
		return nil
	}
	for _, b := range g.Backends.All() {
		if n, ok := b.(backend.AgentNamer); ok && n.AgentName() == agent {
			return b
		}
	}
	return nil
}

// servingBackend picks the backend to accept a record that b says org
// owns. Upstream backends share what they remember, so b may not be the one
// that made it: the org's routed backend is, if it knows the record too.
// Otherwise (say, a local record of an org since moved to an agent) b is.
func (g *Gateway) servingBackend(ctx context.Context, b backend.Backend, org, recordID string) backend.Backend {
	routed, _, ok := g.Backends.Route(org)
	if !ok || routed == b {
		return b
	}
	if owner, err := routed.RecordOrg(ctx, recordID); err == nil && owner == org {
		return routed
	}
	return b
}

// candidateOrgs are the orgs whose agents may be asked about a record on
// behalf of p: its own orgs, or every routed org for a caller of all orgs.
func (g *Gateway) candidateOrgs(p *auth.Principal) []string {
	if p.AllOrgs {
		return g.Backends.Orgs()
	}
	orgs := make([]string, 0, len(p.Orgs))
	for org := range p.Orgs {
		orgs = append(orgs, org)
	}
	slices.Sort(orgs)
	return orgs
}
