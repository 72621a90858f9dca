package handlers

import (
	"errors"
	"net/http"
	"strings"

	"github.com/proofgate/proofgate/internal/shorturl"
)

// ResolveShortURL serves GET <public_url>/url/{id}: the invitation JSON to
// clients that ask for JSON (wallets, per RFC 0434), otherwise a 302 to the
// long ?oob= URL (browsers, which then hand it to a wallet).
func (g *Gateway) ResolveShortURL(w http.ResponseWriter, r *http.Request, id string) {
	e, err := g.ShortURLs.Resolve(r.Context(), id)
	if errors.Is(err, shorturl.ErrNotFound) {
		writeError(w, http.StatusNotFound, "this invitation link is unknown or has expired")
		return
	}
	if err != nil {
		writeBackendError(w, g.Logger, "", err)
		return
	}
	if wantsJSON(r.Header.Get("Accept")) {
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(e.Invitation)
		}
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, e.LongURL, http.StatusFound)
}

// wantsJSON reports whether an Accept header names application/json.
func wantsJSON(accept string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, _ := strings.Cut(part, ";")
		if strings.EqualFold(strings.TrimSpace(mt), "application/json") {
			return true
		}
	}
	return false
}
