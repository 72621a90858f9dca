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
