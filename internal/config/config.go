// Package config holds the JSON configuration of the proofgate handler. It
// lives apart from the module so that the Caddyfile parser (package
// caddyfile) can fill it without importing the module itself.
package config

import (
	"encoding/json"

	"github.com/caddyserver/caddy/v2"

	"github.com/proofgate/proofgate/internal/mail"
	"github.com/proofgate/proofgate/internal/webhook"
)

// Config is the proofgate handler's configuration.
type Config struct {
	// Backends serve the proof requests, by name. Each is a module in the
	// proofgate.backends namespace: "local" (the embedded verifier), "credo"
	// (credo-controller) or "acapy" (ACA-Py's admin API), named by its
	// "type" key. At least one is required.
	BackendsRaw map[string]json.RawMessage `json:"backends,omitempty" caddy:"namespace=proofgate.backends inline_key=type"`

	// Orgs routes org ids to a named backend (and, on multi-tenant agents,
	// a tenant). Orgs not listed go to DefaultBackend.
	Orgs map[string]OrgRoute `json:"orgs,omitempty"`

	// DefaultBackend is the backend of orgs not listed in Orgs. When only
	// one backend is configured it is the default; with several and no
	// default, unlisted orgs are answered 404.
	DefaultBackend string `json:"default_backend,omitempty"`

	// Auth configures authentication; it is mandatory (there is no
	// anonymous mode).
	Auth *Auth `json:"auth,omitempty"`

	// PublicURL is the externally reachable base URL under which the
	// gateway serves short invitation URLs (<public_url>/url/<id>).
	// Defaults to the public_url of the local backend, if there is one.
	PublicURL string `json:"public_url,omitempty"`

	// ShortURLTTL is how long a short invitation URL stays valid.
	// Default: 7 days.
	ShortURLTTL caddy.Duration `json:"short_url_ttl,omitempty"`

	// MaxBodySize caps request bodies, in bytes; larger ones get 413.
	// Default: 1 MiB.
	MaxBodySize int64 `json:"max_body_size,omitempty"`

	// UnknownFields says what to do with request fields the interface does
	// not define: "reject" (default, 400 naming the field) or "ignore".
	UnknownFields string `json:"unknown_fields,omitempty"`

	// InputDescriptors sets how strictly presentation definitions are
	// checked: "dif" (default: valid DIF Presentation Exchange, v1 or v2)
	// or "strict" (additionally every field the interface lists: id, name,
	// purpose, schema, constraints.fields[].path).
	InputDescriptors string `json:"input_descriptors,omitempty"`

	// IdempotencyTTL is how long the answer of a create sent with an
	// Idempotency-Key is kept for retries. Default: 24h.
	IdempotencyTTL caddy.Duration `json:"idempotency_ttl,omitempty"`

	// MaxRecipients caps the emailId list of one request. Default: 10.
	MaxRecipients int `json:"max_recipients,omitempty"`

	// RequestLog tunes the request log (one line per handled request, on
	// the logger http.handlers.proofgate.requests). Without it every
	// line goes to Caddy's logging, which may sample it too.
	RequestLog *RequestLog `json:"request_log,omitempty"`

	// Email delivers invitations to the emailId recipients of a request:
	// queued durably before the 201, then sent over SMTP with retries. Without
	// it, requests with emailId are refused (400).
	Email *mail.Config `json:"email,omitempty"`

	// Webhooks receive an event, signed per the Standard Webhooks
	// specification, on every state change of a proof record (see
	// internal/webhook). Several are allowed, each optionally limited to
	// some orgs.
	Webhooks []webhook.Config `json:"webhooks,omitempty"`
}

// OrgRoute names the backend (and tenant) serving one org.
type OrgRoute struct {
	// Backend is the name of a configured backend.
	Backend string `json:"backend"`

	// Tenant is the org's tenant (credo-controller) or wallet id (ACA-Py)
	// on a multi-tenant agent.
	Tenant string `json:"tenant,omitempty"`
}

// Auth configures authentication and org-scoped authorization.
type Auth struct {
	// ProvidersRaw are the authentication providers, tried in order: the
	// first that recognizes the request's credential decides, and a
	// recognized but invalid credential is refused (401), never passed on
	// to the next provider. Modules in the proofgate.auth.providers
	// namespace: "api_key", "jwt", "caddy".
	ProvidersRaw []json.RawMessage `json:"providers,omitempty" caddy:"namespace=proofgate.auth.providers inline_key=provider"`

	// AllowedRoles are the org roles that may use the API. Default:
	// owner, admin, verifier. Credentials bound to an org as a whole (API
	// keys) hold every role.
	AllowedRoles []string `json:"allowed_roles,omitempty"`
}

// RequestLog tunes the request log.
type RequestLog struct {
	// Sampling keeps only some of the request log's lines under load, as
	// Caddy's log sampling does, but before a line reaches the logger: a
	// dropped line costs next to nothing. Lines of other loggers are not
	// affected. Caddy's own sampling of the log the lines go to, if any,
	// applies to the lines kept here too.
	Sampling *LogSampling `json:"sampling,omitempty"`
}

// LogSampling keeps, in each interval, the first lines and then one in
// every Thereafter, as Caddy's log sampling does.
type LogSampling struct {
	// Interval is the window lines are counted in. Default: 1s.
	Interval caddy.Duration `json:"interval,omitempty"`

	// First lines of each interval are all kept.
	First int `json:"first,omitempty"`

	// Thereafter: after the first lines, one in every Thereafter is kept
	// (none when 0).
	Thereafter int `json:"thereafter,omitempty"`
}
