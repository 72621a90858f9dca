package handlers

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/idempotency"
)

// idempotent runs create once per Idempotency-Key (when the request has
// one and the gateway keeps keys): the first request runs it and its 201 is
// stored; a retry with the same key, org, caller, query and body gets that
// answer again (with Idempotent-Replayed: true) and makes nothing; another
// body gets 422, and a retry while the first still runs 409. Answers other
// than 201 are not kept: the request made nothing (a failed create undoes
// its parts), so a retry runs it anew.
func (g *Gateway) idempotent(w http.ResponseWriter, r *http.Request, p *auth.Principal, orgID string, body []byte, create func(http.ResponseWriter)) {
	if g.Idempotency == nil {
		create(w)
		return
	}
	key, err := idempotency.ParseKey(r.Header)
	if err != nil {
		writeInvalid(w, err.Error())
		return
	}
	if key == "" {
		create(w)
		return
	}
	if p.Caller == "" {
		// Entries are kept per caller; a credential that names no one
		// would share them with every other such credential.
		writeInvalid(w, "Idempotency-Key: the credential names no caller (a JWT needs sub, azp or client_id) to keep the key for")
		return
	}
	fp := idempotency.Fingerprint([]byte(r.URL.RawQuery), body)
	done, claim, err := g.Idempotency.Begin(r.Context(), p.Caller, orgID, key, fp)
	switch {
	case errors.Is(err, idempotency.ErrInProgress):
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusConflict, err.Error())
		return
	case errors.Is(err, idempotency.ErrMismatch):
		writeError(w, http.StatusUnprocessableEntity, err.Error())
		return
	case err != nil:
		writeBackendError(w, r, g.Logger, "", err)
		return
	case done != nil:
		replay(w, done.Status, done.Body)
		return
	}

	rec := &recorder{header: http.Header{}}
	func() {
		defer func() {
			// A panic must not leave the key claimed until the lease ends.
			if v := recover(); v != nil {
				_ = claim.Release(r.Context())
				panic(v)
			}
		}()
		create(rec)
	}()
	if rec.status == http.StatusCreated {
		if err := claim.Complete(r.Context(), rec.status, rec.body.Bytes()); err != nil {
			// The answer still goes out; a retry within the lease gets 409,
			// after it runs again.
			g.Logger.Error("storing the answer of an idempotent request", zap.Error(err))
		}
	} else if err := claim.Release(r.Context()); err != nil {
		g.Logger.Error("releasing an idempotency key", zap.Error(err))
	}
	rec.copyTo(w)
}

// replay writes a stored answer again.
func replay(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Idempotent-Replayed", "true")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// recorder holds an answer until it is stored.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

func (r *recorder) copyTo(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range r.header {
		h[k] = v
	}
	if r.status == 0 {
		r.status = http.StatusOK
	}
	w.WriteHeader(r.status)
	_, _ = w.Write(r.body.Bytes())
}
