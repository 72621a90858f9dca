// Package proofgate is a Caddy v2 HTTP handler that serves a verification API
// (out-of-band proof requests and presentation acceptance) in front of
// credential-verification agents, or on its own embedded verifier.
package proofgate

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	pgcaddyfile "github.com/proofgate/proofgate/caddyfile"
	"github.com/proofgate/proofgate/handlers"
	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/bodyread"
	"github.com/proofgate/proofgate/internal/config"
	"github.com/proofgate/proofgate/internal/idempotency"
	"github.com/proofgate/proofgate/internal/logsample"
	"github.com/proofgate/proofgate/internal/metrics"
	"github.com/proofgate/proofgate/internal/shorturl"
	"github.com/proofgate/proofgate/internal/store"
	"github.com/proofgate/proofgate/internal/sweeper"
	"github.com/proofgate/proofgate/internal/validate"

	// The built-in providers and backends register themselves.
	"github.com/proofgate/proofgate/internal/auth/apikey"
	_ "github.com/proofgate/proofgate/internal/auth/caddyauth"
	_ "github.com/proofgate/proofgate/internal/auth/jwt"
	_ "github.com/proofgate/proofgate/internal/local"
	_ "github.com/proofgate/proofgate/internal/upstream/acapy"
	_ "github.com/proofgate/proofgate/internal/upstream/credo"
)

func init() {
	caddy.RegisterModule(Handler{})
	httpcaddyfile.RegisterHandlerDirective("proofgate", parseCaddyfile)
	// Before respond, so that a site's respond or reverse_proxy (which
	// comes later in Caddy's order) handles only what proofgate passes on.
	httpcaddyfile.RegisterDirectiveOrder("proofgate", httpcaddyfile.Before, "respond")
}

// Defaults of the options that have one.
const (
	DefaultMaxBodySize   = 1 << 20
	DefaultShortURLTTL   = 7 * 24 * time.Hour
	DefaultMaxRecipients = 10
)

// Handler serves the verification API: POST /orgs/{orgId}/proofs/oob and
// POST /proofs/{proofRecordId}/accept-presentation, plus the short
// invitation URLs it hands out. Every other request goes to the next
// handler untouched.
type Handler struct {
	config.Config

	gw          *handlers.Gateway
	shortPrefix string                 // URL path prefix of short URLs, "" when disabled
	mailKey     string                 // this handler's entry in mailPool, "" without email
	webhookKey  string                 // this handler's hold on the webhook deliverer, "" without webhooks
	sweeper     *sweeper.Sweeper       // removes what outlived its retention; nil when nothing expires
	didcomm     map[string]didcommSite // URL path → local verifier
	backendInfo []func()               // stops exporting this config's backend_info series
	// invitationLinks: URL path of a public URL → where long invitation
	// URLs opened in a browser get the invitation page.
	invitationLinks map[string]invitationLink
	logger          *zap.Logger
	requestLog      *zap.Logger // one line per handled request (requestlog.go)
	// requestSample decides which request log lines to write, nil to
	// write every one (request_log sampling).
	requestSample *logsample.Sampler
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.proofgate",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision loads the backends and auth providers and builds the gateway.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	h.requestLog = h.logger.Named(RequestLoggerName)
	if rl := h.RequestLog; rl != nil && rl.Sampling != nil {
		// An unset interval is logsample's default, a second.
		h.requestSample = logsample.New(time.Duration(rl.Sampling.Interval), rl.Sampling.First, rl.Sampling.Thereafter)
	}
	if err := metrics.Register(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %v", err)
	}
	if h.MaxBodySize == 0 {
		h.MaxBodySize = DefaultMaxBodySize
	}
	if h.ShortURLTTL == 0 {
		h.ShortURLTTL = caddy.Duration(DefaultShortURLTTL)
	}
	if h.MaxRecipients == 0 {
		h.MaxRecipients = DefaultMaxRecipients
	}

	r := &router{byName: map[string]backend.Backend{}, orgs: h.Orgs, defaultName: h.DefaultBackend, names: map[backend.Backend]string{}}
	if h.BackendsRaw != nil {
		mods, err := ctx.LoadModule(h, "BackendsRaw")
		if err != nil {
			return fmt.Errorf("loading backends: %v", err)
		}
		for name, m := range mods.(map[string]any) {
			if name == metrics.NoBackend {
				// The metrics' and request log's name for "answered
				// before a backend was chosen".
				return fmt.Errorf("backend %s: the name is reserved (requests answered before a backend is chosen are counted under it); choose another", name)
			}
			b, ok := m.(backend.Backend)
			if !ok {
				return fmt.Errorf("backend %s: module %T is not a proofgate backend", name, m)
			}
			r.byName[name] = b
			r.names[b] = name
			h.backendInfo = append(h.backendInfo, metrics.ReportBackend(name, backendType(m)))
		}
	}
	if r.defaultName == "" && len(r.byName) == 1 {
		for name := range r.byName {
			r.defaultName = name
		}
	}
	r.index()
	startOrgChecks(r, h.Orgs, h.DefaultBackend)
	for name, b := range r.byName {
		rcv, ok := b.(didcommReceiver)
		if !ok || rcv.DIDCommPath() == "" {
			continue
		}
		if h.didcomm == nil {
			h.didcomm = map[string]didcommSite{}
		}
		if _, taken := h.didcomm[rcv.DIDCommPath()]; taken {
			return fmt.Errorf("backend %s: DIDComm endpoint path %s is already served by another backend", name, rcv.DIDCommPath())
		}
		if underAPI(rcv.DIDCommPath()) {
			return fmt.Errorf("backend %s: DIDComm endpoint path %s is under /orgs/ or /proofs/, where proofgate's API routes are: wallets' messages would never reach it (choose a public_url or didcomm_endpoint outside them)", name, rcv.DIDCommPath())
		}
		h.didcomm[rcv.DIDCommPath()] = didcommSite{rcv, name}
	}

	var chain auth.Chain
	allowed := auth.DefaultAllowedRoles
	if h.Auth != nil {
		if len(h.Auth.AllowedRoles) > 0 {
			allowed = h.Auth.AllowedRoles
		}
		if h.Auth.ProvidersRaw != nil {
			mods, err := ctx.LoadModule(h.Auth, "ProvidersRaw")
			if err != nil {
				return fmt.Errorf("loading auth providers: %v", err)
			}
			for i, m := range mods.([]any) {
				p, ok := m.(auth.Provider)
				if !ok {
					return fmt.Errorf("auth provider %d: module %T is not a proofgate auth provider", i, m)
				}
				chain = append(chain, p)
			}
			if err := apikey.Distinct(chain); err != nil {
				return err
			}
		}
	}

	v, err := validate.New(validate.Options{
		UnknownFields:    h.UnknownFields,
		InputDescriptors: h.InputDescriptors,
		MaxRecipients:    h.MaxRecipients,
	})
	if err != nil {
		return err
	}

	h.gw = &handlers.Gateway{
		Logger:       h.logger,
		Auth:         chain,
		AllowedRoles: allowed,
		Validator:    v,
		Backends:     r,
		MaxBodySize:  h.MaxBodySize,
	}

	h.gw.Idempotency = idempotency.New(store.New(ctx.Storage(), idempotency.Namespace), time.Duration(h.IdempotencyTTL))

	publicURL := h.PublicURL
	if publicURL == "" {
		// The first local verifier's (the default, then by name), and
		// the operator told when others differ: short URLs are served
		// under this one alone.
		for _, b := range r.all {
			p, ok := b.(interface{ InvitationBaseURL() string })
			switch {
			case !ok || p.InvitationBaseURL() == "":
			case publicURL == "":
				publicURL = p.InvitationBaseURL()
			case p.InvitationBaseURL() != publicURL:
				h.logger.Warn("local backends have different public URLs and the handler has no public_url: short URLs are made and served under the first",
					zap.String("public_url", publicURL), zap.String("backend", r.Name(b)), zap.String("its_public_url", p.InvitationBaseURL()))
			}
		}
	}
	if publicURL != "" {
		u, err := url.Parse(publicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("public_url: %q is not an absolute http(s) URL", publicURL)
		}
		base := strings.TrimSuffix(u.Scheme+"://"+u.Host+u.Path, "/")
		h.gw.ShortURLBase = base + "/url/"
		h.shortPrefix = strings.TrimSuffix(u.Path, "/") + "/url/"
		if underAPI(h.shortPrefix) {
			return fmt.Errorf("public_url: short URLs would be served under %s, inside /orgs/ or /proofs/, where proofgate's API routes are, and never reached (choose a public_url outside them)", h.shortPrefix)
		}
		h.gw.ShortURLs = shorturl.New(store.New(ctx.Storage(), "shorturls"), time.Duration(h.ShortURLTTL))
	}
	h.provisionInvitationLinks(r.all, publicURL)
	if h.Email != nil {
		if err := h.provisionMail(ctx, ctx.Storage()); err != nil {
			return err
		}
	}
	return h.provisionChanges(ctx, ctx.Storage(), r.all)
}

// Cleanup withdraws this handler's functions from the pooled e-mail and
// webhook deliverers (a config Caddy refused after provisioning it leaves
// the running one in charge) and releases its hold on them; the last
// holder stops them.
func (h *Handler) Cleanup() error {
	var errs []error
	h.detachMail()
	if h.mailKey != "" {
		_, err := mailPool.Delete(h.mailKey)
		h.mailKey = ""
		errs = append(errs, err)
	}
	errs = append(errs, h.cleanupChanges())
	for _, stop := range h.backendInfo {
		stop()
	}
	h.backendInfo = nil
	return errors.Join(errs...)
}

// backendType is the type of a backend module, the last part of its
// module ID: local, credo, acapy.
func backendType(m any) string {
	if mod, ok := m.(caddy.Module); ok {
		return mod.CaddyModule().ID.Name()
	}
	return "other"
}

// Validate checks the configuration as a whole.
func (h *Handler) Validate() error {
	if h.Auth == nil || len(h.gw.Auth) == 0 {
		return fmt.Errorf("proofgate: an auth block with at least one provider (api_key, jwt or caddy) is required; there is no anonymous mode")
	}
	r := h.gw.Backends.(*router)
	if len(r.byName) == 0 {
		return fmt.Errorf("proofgate: configure at least one backend, e.g. backend local local { public_url https://verifier.example.com }")
	}
	if h.DefaultBackend != "" {
		if _, ok := r.byName[h.DefaultBackend]; !ok {
			return fmt.Errorf("proofgate: default_backend %q is not a configured backend", h.DefaultBackend)
		}
	}
	for org, route := range h.Orgs {
		b, ok := r.byName[route.Backend]
		if !ok {
			return fmt.Errorf("proofgate: org %s: backend %q is not configured", org, route.Backend)
		}
		if route.Tenant == "" {
			continue
		}
		tv, ok := b.(backend.TenantValidator)
		if !ok {
			return fmt.Errorf("proofgate: org %s: backend %q has no tenants", org, route.Backend)
		}
		if err := tv.ValidateTenant(route.Tenant); err != nil {
			return fmt.Errorf("proofgate: org %s: tenant %s: %v", org, route.Tenant, err)
		}
	}
	if rl := h.RequestLog; rl != nil && rl.Sampling != nil {
		if s := rl.Sampling; s.Interval < 0 || s.First < 0 || s.Thereafter < 0 {
			return fmt.Errorf("proofgate: request_log sampling: interval, first and thereafter must not be negative")
		} else if s.First == 0 && s.Thereafter == 0 {
			// It would keep no line: a sampling block without numbers
			// must not silence the log unnoticed.
			return fmt.Errorf("proofgate: request_log sampling: set first or thereafter (e.g. first 10, thereafter 100); to silence the request log, exclude its logger: log default { exclude http.handlers.proofgate.%s }", RequestLoggerName)
		}
	}
	if h.MaxBodySize < 0 {
		return fmt.Errorf("proofgate: max_body_size must be positive")
	}
	if h.MaxRecipients < 0 || h.MaxRecipients > validate.MaxRecipientsLimit {
		return fmt.Errorf("proofgate: max_recipients must be from 1 to %d", validate.MaxRecipientsLimit)
	}
	if h.IdempotencyTTL < 0 {
		return fmt.Errorf("proofgate: idempotency_ttl must be positive")
	}
	if h.ShortURLTTL < 0 {
		return fmt.Errorf("proofgate: short_url_ttl must be positive")
	}
	return nil
}

// ServeHTTP serves proofgate's routes and passes everything else on.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	route, param := h.match(r.URL.Path)
	if route == routeDIDComm && r.Method != http.MethodPost {
		// A DIDComm endpoint at a public URL's own path (didcomm_endpoint
		// equal to public_url) takes only its POSTs: the invitation links
		// and the site's own pages there are not DIDComm's.
		if _, shared := h.invitationLinks[param]; shared {
			route = routeNone
		}
	}
	if route == routeNone && h.invitationLinks != nil && h.isInvitationLink(r) {
		route, param = routeInvitationPage, r.URL.Path
	}
	if route == routeNone {
		return next.ServeHTTP(w, r)
	}
	start := bodyread.Started(r) // Caddy's start: a duration that includes its part
	sw := statusWriters.Get().(*statusWriter)
	sw.ResponseWriter, sw.status, sw.note = w, 0, handlers.RequestNote{}
	defer func() {
		// A bug must cost one request a 500, never the connection.
		if rec := recover(); rec != nil {
			handlers.WriteInternalError(sw, r, h.logger, fmt.Sprintf("panic: %v", rec))
		}
		d := time.Since(start)
		// Closed whether or not the line is written: a change committed
		// later gets a line of its own.
		changes := sw.note.Changes.Close()
		metrics.ObserveRequest(route.operation(), sw.note.Backend, sw.status, d)
		h.logRequest(r, route, param, sw, changes, start, d)
		sw.ResponseWriter, sw.note = nil, handlers.RequestNote{}
		statusWriters.Put(sw)
	}()
	h.serve(sw, r, route, param)
	return nil
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, route route, param string) {
	switch route {
	case routeOOB:
		if r.Method != http.MethodPost {
			handlers.WriteMethodNotAllowed(w, http.MethodPost)
			return
		}
		h.gw.SendOutOfBandRequest(w, r, param)
	case routeAccept:
		if r.Method != http.MethodPost {
			handlers.WriteMethodNotAllowed(w, http.MethodPost)
			return
		}
		h.gw.AcceptPresentation(w, r, param)
	case routeRecord:
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			handlers.WriteMethodNotAllowed(w, "GET, HEAD")
			return
		}
		h.gw.GetProofRecord(w, r, param)
	case routeShortURL:
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			handlers.WriteMethodNotAllowed(w, "GET, HEAD")
			return
		}
		h.gw.ResolveShortURL(w, r, param)
	case routeInvitationPage:
		link := h.invitationLinks[param]
		h.gw.ServeInvitationLink(w, r, link.base(r.Host), link.states)
	case routeDIDComm:
		// Wallets post their messages here; the verifier answers every
		// method and status itself (DIDComm over HTTP is one-way: 202).
		site := h.didcomm[param]
		if sw, ok := w.(*statusWriter); ok {
			sw.note.Backend = site.name // chosen by the path, before anything is read
		}
		site.ServeDIDComm(w, r)
	}
}

// startOrgChecks has each upstream backend check, in the background, that
// its agent serves the orgs mapped to it, so that a wrong tenant shows in
// the log at load rather than at the first request. An explicit
// default_backend is checked for the unmapped orgs too (org "*").
func startOrgChecks(r *router, orgs map[string]config.OrgRoute, defaultBackend string) {
	byBackend := map[string][]backend.Org{}
	for id, route := range orgs {
		byBackend[route.Backend] = append(byBackend[route.Backend], backend.Org{ID: id, Tenant: route.Tenant})
	}
	if defaultBackend != "" {
		byBackend[defaultBackend] = append(byBackend[defaultBackend], backend.Org{ID: "*"})
	}
	for name, list := range byBackend {
		if oc, ok := r.byName[name].(backend.OrgChecker); ok {
			oc.CheckOrgs(list)
		}
	}
}

// didcommReceiver is a backend that takes DIDComm messages from wallets at
// a path of its own (the local verifier).
type didcommReceiver interface {
	DIDCommPath() string
	ServeDIDComm(w http.ResponseWriter, r *http.Request)
}

// didcommSite is the backend serving a DIDComm endpoint, and its
// configured name for the metrics and the request log.
type didcommSite struct {
	didcommReceiver
	name string
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens; see package
// caddyfile for the syntax.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return pgcaddyfile.Parse(d, &h.Config)
}

func parseCaddyfile(helper httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	h := new(Handler)
	err := h.UnmarshalCaddyfile(helper.Dispenser)
	return h, err
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
	_ caddyfile.Unmarshaler       = (*Handler)(nil)
)
