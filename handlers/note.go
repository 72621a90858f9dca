package handlers

import (
	"errors"
	"net/http"

	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/auth/apikey"
	"github.com/proofgate/proofgate/internal/auth/jwt"
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/metrics"
)

// RequestNote is what a handled request tells the metrics and the request
// log beyond its status. The module's response writer carries one per
// request (see Noter); the handlers fill it in as they learn.
type RequestNote struct {
	// Backend is the configured name of the backend that served the
	// request ("" when none was reached).
	Backend string
	// Org is the org the request acted for, once known.
	Org string
	// Recipients are the e-mail recipients of a send (for the log, which
	// shows only their domains).
	Recipients []string
	// Changes are the record state changes the request caused (nil when
	// it changed none), for its log line.
	Changes *RequestChanges
}

// Noter is implemented by response writers that carry a RequestNote.
type Noter interface {
	RequestNote() *RequestNote
}

// noteOf returns w's note, or nil when w carries none (unit tests).
func noteOf(w http.ResponseWriter) *RequestNote {
	if n, ok := w.(Noter); ok {
		return n.RequestNote()
	}
	return nil
}

// backendNamer is implemented by routers that know their backends' names.
type backendNamer interface {
	Name(b backend.Backend) string
}

// noteBackend records which backend serves the request, and for which org.
func (g *Gateway) noteBackend(w http.ResponseWriter, b backend.Backend, org string) {
	n := noteOf(w)
	if n == nil {
		return
	}
	n.Org = org
	if namer, ok := g.Backends.(backendNamer); ok {
		n.Backend = namer.Name(b)
	}
}

// authFailureReason is the metrics label of a failed authentication.
func authFailureReason(err error) string {
	switch {
	case errors.Is(err, auth.ErrNoCredential):
		return metrics.AuthMissing
	case errors.Is(err, auth.ErrUnavailable):
		return metrics.AuthUnavailable
	case errors.Is(err, apikey.ErrInvalidKey):
		return metrics.AuthInvalidAPIKey
	}
	return tokenErrorReason(err)
}

// tokenErrorReason is the reason of a JWT's rejection, or "other". Apart
// from authFailureReason so that the target of errors.As, which escapes,
// is allocated only for the errors that get this far.
func tokenErrorReason(err error) string {
	var tokenErr *jwt.TokenError
	if errors.As(err, &tokenErr) {
		return tokenErr.Reason
	}
	return metrics.AuthOther
}
