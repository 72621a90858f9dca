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
// provider. One a provider refuses as another's (ErrOtherIssuer: a JWT of
// another identity provider) is offered to the next; if none takes it,
// the first such refusal is the answer.
func (c Chain) Authenticate(r *http.Request) (*Principal, string, error) {
	if err := ambiguousCredentials(r); err != nil {
		return nil, DefaultChallenge, err
	}
	var other error
	var otherBy Provider
	for _, p := range c {
		principal, err := p.Authenticate(r)
		if err == nil {
			return principal, "", nil
		}
		if errors.Is(err, ErrNoCredential) {
			continue
		}
		if errors.Is(err, ErrOtherIssuer) {
			if other == nil {
				other, otherBy = err, p
			}
			continue
		}
		return nil, challengeFor(p, err), err
	}
	if other != nil {
		return nil, challengeFor(otherBy, other), other
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

// ErrOtherIssuer marks the refusal of a credential that another provider
// of the same kind may take: a JWT whose issuer is not the provider's.
// Chain offers it to the next provider.
var ErrOtherIssuer = errors.New("issued by another identity provider")

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
