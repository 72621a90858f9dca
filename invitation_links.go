package proofgate

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
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
	// bases are the public URLs (without query) served at this path, one
	// per host, in the order of the verifiers that advertise them.
	bases []string
	// states are the local verifiers that vouch for its invitations:
	// every one whose public URL has this path, each asked in turn.
	states anyLocal
}

// base is the public URL a page at this path shows its long URL under:
// the one of the request's host, else the first.
func (l invitationLink) base(host string) string {
	for _, b := range l.bases {
		if u, err := url.Parse(b); err == nil && strings.EqualFold(u.Host, host) {
			return b
		}
	}
	return l.bases[0]
}

// provisionInvitationLinks takes the public URLs of the local verifiers
// (their invitations' base) and the handler's own public_url. A page is
// only ever shown for an invitation a local verifier holds, byte for
// byte: anyone can put a label, a comment and a service of their own into
// an ?oob= link, and the page would show them on the verifier's origin,
// under its name. So a path with no local verifier behind it takes no
// links (they pass through), a path is vouched for by every local
// verifier whose public URL has it (two on different hosts may share a
// path), and the handler's public_url by every local verifier, each asked
// in turn.
func (h *Handler) provisionInvitationLinks(backends []backend.Backend, publicURL string) {
	add := func(raw string, states ...handlers.InvitationStater) {
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
			if h.invitationLinks == nil {
				h.invitationLinks = map[string]invitationLink{}
			}
			link := h.invitationLinks[p]
			if !slices.Contains(link.bases, u.String()) {
				link.bases = append(link.bases, u.String())
			}
			for _, st := range states {
				if !slices.Contains(link.states, st) {
					link.states = append(link.states, st)
				}
			}
			h.invitationLinks[p] = link
		}
	}
	var all anyLocal
	for _, b := range backends {
		states, ok := b.(handlers.InvitationStater)
		if !ok {
			continue
		}
		all = append(all, states)
		if p, ok := b.(interface{ InvitationBaseURL() string }); ok && p.InvitationBaseURL() != "" {
			add(p.InvitationBaseURL(), states)
		}
	}
	if publicURL != "" && len(all) > 0 {
		add(publicURL, all...)
	}
}

// anyLocal asks each local verifier in turn about an invitation: the
// first that holds it answers. One that fails does not stop the others;
// its error is the answer only when none holds it.
type anyLocal []handlers.InvitationStater

// InvitationState implements handlers.InvitationStater.
func (a anyLocal) InvitationState(ctx context.Context, invitationID string) (string, json.RawMessage, error) {
	var failed error
	for _, s := range a {
		state, inv, err := s.InvitationState(ctx, invitationID)
		switch {
		case err == nil:
			return state, inv, nil
		case !errors.Is(err, backend.ErrNotFound) && failed == nil:
			failed = err
		}
	}
	if failed != nil {
		return "", nil, failed
	}
	return "", nil, backend.ErrNotFound
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
