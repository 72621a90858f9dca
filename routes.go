package proofgate

import "strings"

type route int

const (
	routeNone route = iota
	routeOOB
	routeAccept
	routeShortURL
	routeDIDComm
	routeInvitationPage // <public_url>?oob=… opened in a browser
	routeRecord
)

// operation is the route's metrics label.
func (rt route) operation() string {
	switch rt {
	case routeOOB:
		return opSendOOB
	case routeAccept:
		return opAccept
	case routeDIDComm:
		return opDIDComm
	case routeInvitationPage:
		return opInvitationPage
	case routeRecord:
		return opGetRecord
	default:
		return opShortURL
	}
}

// match recognizes proofgate's paths without allocating: the two operations
// and, when enabled, the short invitation URLs and the local verifiers'
// DIDComm endpoints. It returns the path
// parameter (org id, record id, short id), which is one non-empty segment.
func (h *Handler) match(path string) (route, string) {
	if rest, ok := strings.CutPrefix(path, "/orgs/"); ok {
		if org, ok := strings.CutSuffix(rest, "/proofs/oob"); ok && segment(org) {
			return routeOOB, org
		}
		return routeNone, ""
	}
	if rest, ok := strings.CutPrefix(path, "/proofs/"); ok {
		if id, ok := strings.CutSuffix(rest, "/accept-presentation"); ok && segment(id) {
			return routeAccept, id
		}
		if segment(rest) {
			return routeRecord, rest
		}
		return routeNone, ""
	}
	if len(h.didcomm) > 0 {
		if _, ok := h.didcomm[path]; ok {
			return routeDIDComm, path
		}
	}
	if h.shortPrefix != "" {
		if id, ok := strings.CutPrefix(path, h.shortPrefix); ok && segment(id) {
			return routeShortURL, id
		}
	}
	return routeNone, ""
}

// underAPI reports whether path is one match gives to the API routes
// before any other: a DIDComm endpoint or short-URL prefix there would
// never be reached.
func underAPI(path string) bool {
	return strings.HasPrefix(path, "/orgs/") || strings.HasPrefix(path, "/proofs/")
}

func segment(s string) bool {
	return s != "" && !strings.Contains(s, "/")
}
