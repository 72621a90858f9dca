// Package auth defines who a caller is (Principal), how providers recognize
// callers (Provider), and what they may do (Authorize). Providers are Caddy
// modules in the proofgate.auth.providers namespace, tried in configured order.
package auth

import (
	"errors"
	"net/http"
	"slices"
	"strings"
)

// Principal is an authenticated caller.
type Principal struct {
	// Subject identifies the caller in logs (never a secret): a key's
	// label or digest prefix, a JWT "sub", a Caddy user id.
	Subject string
	// Caller identifies the credential's holder for state kept per caller
	// (Idempotency-Key entries): unlike Subject, never a display name two
	// credentials may share. Empty when the credential names no one (a JWT
	// without sub, azp or client_id).
	Caller string
	// AllOrgs grants every org (an API key bound to "*").
	AllOrgs bool
	// Orgs maps each org the caller belongs to onto its roles there. A nil
	// role list means the credential is bound to the org as a whole (an API
	// key) and holds every role.
	Orgs map[string][]string
}

// Provider recognizes and checks one kind of credential.
type Provider interface {
	// Authenticate returns:
	//   - (principal, nil) when the request carries a credential of this
	//     provider's kind and it is valid;
	//   - (nil, ErrNoCredential) when the request carries no credential this
	//     provider understands, so the next provider is tried;
	//   - (nil, err) for a credential of this kind that is invalid: the
	//     request is refused with 401, never passed to a weaker provider.
	Authenticate(r *http.Request) (*Principal, error)
}

// Challenger is optionally implemented by providers to name the
// WWW-Authenticate challenge sent with a 401 caused by err (err is nil when
// no provider recognized a credential).
type Challenger interface {
	Challenge(err error) string
}

// ErrNoCredential means a provider found no credential of its kind.
var ErrNoCredential = errors.New("no credential")

// ErrUnavailable means a provider recognized the credential but cannot
// check it now (its identity provider's keys were never fetched): the
// request is answered 503, not 401, since the caller did nothing wrong.
var ErrUnavailable = errors.New("credentials cannot be checked now")

// DefaultAllowedRoles are the org roles that may use the API when none are
// configured: CREDEBL's verifier-side roles.
var DefaultAllowedRoles = []string{"owner", "admin", "verifier"}

// Authorize reports whether p may act for orgID: the caller must belong to
// the org with at least one allowed role (credentials bound to the org as a
// whole always may).
func (p *Principal) Authorize(orgID string, allowedRoles []string) bool {
	if p == nil {
		return false
	}
	if p.AllOrgs {
		return true
	}
	roles, member := p.Orgs[orgID]
	if !member {
		return false
	}
	if roles == nil {
		return true
	}
	for _, r := range roles {
		if slices.Contains(allowedRoles, r) {
			return true
		}
	}
	return false
}

// APIKeyHeader is X-API-Key as net/http keys it (canonical form), so that
// it is looked up in a request's header map directly: Header.Get would
// canonicalize "X-API-Key" into a new string on every request.
const APIKeyHeader = "X-Api-Key"

// Header returns the first value of h[key], for a key already in canonical
// form, as h.Get(key) does but without canonicalizing it again.
func Header(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// BearerToken returns the token of an "Authorization: Bearer <token>"
// header (scheme case-insensitive, as RFC 6750 allows).
func BearerToken(r *http.Request) (string, bool) {
	h := Header(r.Header, "Authorization")
	if len(h) < 7 || !strings.EqualFold(h[:7], "bearer ") {
		return "", false
	}
	token := strings.TrimSpace(h[7:])
	return token, token != ""
}
