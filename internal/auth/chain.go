package auth

import (
	"errors"
	"net/http"
)

// DefaultChallenge is the WWW-Authenticate value sent with a 401 when no
// provider names its own.
const DefaultChallenge = `Bearer realm="proofgate"`

// Chain tries providers in order; the first that recognizes the request's
// credential decides.
type Chain []Provider

// Authenticate returns the caller, or an error and the WWW-Authenticate
// challenge to send with the 401. A credential that a provider recognizes
// but rejects is final: it is never offered to a later (perhaps weaker)
// provider.
func (c Chain) Authenticate(r *http.Request) (*Principal, string, error) {
	if err := ambiguousCredentials(r); err != nil {
		return nil, DefaultChallenge, err
	}
	for _, p := range c {
		principal, err := p.Authenticate(r)
		if err == nil {
			return principal, "", nil
		}
		if errors.Is(err, ErrNoCredential) {
			continue
		}
		return nil, challengeFor(p, err), err
	}
	for _, p := range c {
		if ch, ok := p.(Challenger); ok {
			if s := ch.Challenge(nil); s != "" {
				return nil, s, ErrNoCredential
			}
		}
	}
	return nil, DefaultChallenge, ErrNoCredential
}

func challengeFor(p Provider, err error) string {
	if ch, ok := p.(Challenger); ok {
		if s := ch.Challenge(err); s != "" {
			return s
		}
	}
	return DefaultChallenge
}

// ErrAmbiguousCredentials means the request carries more than one
// credential: a credential header given twice, or an X-API-Key beside an
// Authorization header that says something else. Which one a provider
// would pick is an accident of order, so none is taken (401).
var ErrAmbiguousCredentials = errors.New("more than one credential: give one Authorization or X-API-Key header")

func ambiguousCredentials(r *http.Request) error {
	authz := r.Header["Authorization"]
	keys := r.Header[APIKeyHeader]
	if len(authz) > 1 || len(keys) > 1 {
		return ErrAmbiguousCredentials
	}
	if len(authz) == 1 && len(keys) == 1 {
		// The same key twice (a client that sets both) is one credential.
		if bearer, ok := BearerToken(r); !ok || bearer != keys[0] {
			return ErrAmbiguousCredentials
		}
	}
	return nil
}
