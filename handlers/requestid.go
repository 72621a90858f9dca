package handlers

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/google/uuid"
)

// RequestID is r's request id: Caddy's {http.request.uuid}, the id its
// access log and proofgate's request log show, made on first use and the
// same for the rest of the request. Outside Caddy (a request without its
// replacer, as in unit tests) it is a fresh random id.
func RequestID(r *http.Request) string {
	if r != nil {
		if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
			if id, ok := repl.GetString("http.request.uuid"); ok && id != "" {
				return id
			}
		}
	}
	return uuid.NewString()
}
