// Package handlers serves proofgate's operations over HTTP: request
// decoding and validation, authentication and org-scoped authorization,
// the call into a backend, and the JSON envelopes of successes and errors.
// It knows nothing of Caddy's configuration; the module wires it.
package handlers

import (
	"context"
	"errors"
	"net/http"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/backend"
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
}

// Router says which backend serves an org.
type Router interface {
	// Route returns the backend serving orgID and the org as that backend
	// knows it (with its tenant), or false if no backend serves it.
	Route(orgID string) (backend.Backend, backend.Org, bool)
	// All returns every configured backend, each once.
	All() []backend.Backend
}

// authenticate runs the provider chain; on failure it has answered 401.
func (g *Gateway) authenticate(w http.ResponseWriter, r *http.Request) (*auth.Principal, bool) {
	p, challenge, err := g.Auth.Authenticate(r)
	if err != nil {
		if c := g.Logger.Check(zap.DebugLevel, "authentication failed"); c != nil {
			c.Write(zap.String("reason", err.Error()), zap.String("remote", r.RemoteAddr))
		}
		writeUnauthorized(w, challenge)
		return nil, false
	}
	return p, true
}

// findRecord asks every backend which org owns the record; the first that
// knows it answers.
func (g *Gateway) findRecord(ctx context.Context, recordID string) (backend.Backend, string, error) {
	for _, b := range g.Backends.All() {
		org, err := b.RecordOrg(ctx, recordID)
		if errors.Is(err, backend.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return b, org, nil
	}
	return nil, "", backend.ErrNotFound
}
