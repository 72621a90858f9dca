package proofgate

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/proofgate/proofgate/handlers"
	"github.com/proofgate/proofgate/internal/backend"
)

// opInvitationPage is the metrics label of the long invitation URL's page.
const opInvitationPage = "invitation_page"

// invitationLink is where long invitation URLs, <public_url>?oob=…, reach
// proofgate: a browser that opens one gets the invitation page there. A
// site usually serves other things at that path too (a reverse_proxy to
// the agent, a file_server, a respond), so only GET and HEAD requests with
// an oob parameter are taken; the rest passes through.
type invitationLink struct {
	base   string                    // the public URL, without query
	states handlers.InvitationStater // the local verifier behind it, or nil
}

// provisionInvitationLinks takes the public URLs of the local verifiers
// (their invitations' base) and the handler's own public_url.
func (h *Handler) provisionInvitationLinks(backends []backend.Backend, publicURL string) {
	add := func(raw string, states handlers.InvitationStater) {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return
		}
		u.RawQuery, u.ForceQuery, u.Fragment = "", false, ""
		p := u.Path
		if p == "" {
			p = "/"
		}
		paths := []string{p}
		if p != "/" {
			trimmed := strings.TrimSuffix(p, "/")
			paths = []string{trimmed, trimmed + "/"}
		}
		for _, p := range paths {
			if cur, ok := h.invitationLinks[p]; ok && cur.states != nil {
				continue // the first local verifier on a path keeps it
			}
			if h.invitationLinks == nil {
				h.invitationLinks = map[string]invitationLink{}
			}
			h.invitationLinks[p] = invitationLink{base: u.String(), states: states}
		}
	}
	for _, b := range backends {
		p, ok := b.(interface{ InvitationBaseURL() string })
		if !ok || p.InvitationBaseURL() == "" {
			continue
		}
		states, _ := b.(handlers.InvitationStater)
		add(p.InvitationBaseURL(), states)
	}
	if publicURL != "" {
		add(publicURL, nil)
	}
}

// isInvitationLink reports whether r opens a long invitation URL.
func (h *Handler) isInvitationLink(r *http.Request) bool {
	if _, ok := h.invitationLinks[r.URL.Path]; !ok {
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	q := r.URL.RawQuery
	return strings.HasPrefix(q, "oob=") || strings.Contains(q, "&oob=")
}
