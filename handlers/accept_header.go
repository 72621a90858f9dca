package handlers

import (
	"strconv"
	"strings"
)

// acceptsAny reports whether an Accept header names one of types (media
// types, matched without case) as acceptable: a quality of 0 ("q=0")
// says the client does not take it (RFC 9110, 12.5.1). Which of several
// named types is preferred is not weighed: the invitation routes answer
// JSON to whoever names it, the page to browsers.
func acceptsAny(accept string, types ...string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, _ := strings.Cut(part, ";")
		mt = strings.TrimSpace(mt)
		for _, t := range types {
			if strings.EqualFold(mt, t) && !qualityZero(params) {
				return true
			}
		}
	}
	return false
}

// qualityZero reports whether media-type parameters give q=0.
func qualityZero(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && q == 0
		}
	}
	return false
}
