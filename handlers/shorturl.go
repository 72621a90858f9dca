package handlers

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/shorturl"
)

// ResolveShortURL serves GET <public_url>/url/{id}, by content negotiation:
//   - Accept: application/json (wallets, RFC 0434): the invitation JSON;
//   - Accept: text/html (browsers): the invitation page, for a person to
//     scan its QR code or open it in a wallet app;
//   - anything else: a 302 to the long ?oob= URL (RFC 0434's other answer,
//     for clients that follow redirects and read the URL).
func (g *Gateway) ResolveShortURL(w http.ResponseWriter, r *http.Request, id string) {
	accept := r.Header.Get("Accept")
	short, err := g.resolveShortURL(r.Context(), id)
	if errors.Is(err, backend.ErrNotFound) {
		if !wantsJSON(accept) && wantsHTML(accept) {
			writeProblemPage(w, r, http.StatusNotFound, "Invitation not found",
				"This invitation link is unknown or has expired.")
			return
		}
		writeError(w, http.StatusNotFound, "this invitation link is unknown or has expired")
		return
	}
	if err != nil {
		writeBackendError(w, g.Logger, "", err)
		return
	}
	switch {
	case wantsJSON(accept):
		writeInvitationJSON(w, r, short.Invitation)
	case wantsHTML(accept):
		info, err := parseInvitation(short.Invitation)
		if err != nil {
			// Stored by us; a record made by an agent we could not read.
			// Not named by its id, which opens the invitation; the
			// request log's line of this request says which request.
			g.Logger.Warn("short URL holds no readable invitation", zap.Error(err))
		} else if short.State != "" && g.invitationClosed(w, r, info.ID, short.State, nil, false) {
			return
		}
		writeInvitationPage(w, r, g.ShortURLBase+id, short.LongURL, short.Invitation, info)
	default:
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Add("Vary", "Accept")
		http.Redirect(w, r, short.LongURL, http.StatusFound)
	}
}

// resolveShortURL finds the invitation and long URL behind a short-URL
// id: in the record of a backend that keeps its short URLs there
// (backend.ShortURLKeeper, which refuses the stored short URLs' ids,
// of another length, without I/O), else among the stored short URLs.
// backend.ErrNotFound when neither has it live. A keeper's answer
// carries its record's state, read with it.
func (g *Gateway) resolveShortURL(ctx context.Context, id string) (backend.ShortURL, error) {
	for _, b := range g.Backends.All() {
		if k, ok := b.(backend.ShortURLKeeper); ok {
			short, err := k.ResolveShortURL(ctx, id)
			if !errors.Is(err, backend.ErrNotFound) {
				return short, err
			}
		}
	}
	e, err := g.ShortURLs.Resolve(ctx, id)
	if errors.Is(err, shorturl.ErrNotFound) {
		return backend.ShortURL{}, backend.ErrNotFound
	}
	return backend.ShortURL{Invitation: e.Invitation, LongURL: e.LongURL}, err
}

// InvitationStater tells the state of the proof record behind an
// invitation the local verifier made (backend.ErrNotFound when there is
// none), so the page of a used or deleted invitation can say so.
type InvitationStater interface {
	InvitationState(ctx context.Context, invitationID string) (string, error)
}

// ServeInvitationLink serves GET <public_url>?oob=…, the long invitation
// URL, when a browser opens it: the invitation page (or JSON, to clients
// that ask for it). The invitation is in the URL itself; base is the
// public URL it was made for; states, when not nil, tells whether its
// record is still waiting for an answer.
func (g *Gateway) ServeInvitationLink(w http.ResponseWriter, r *http.Request, base string, states InvitationStater) {
	accept := r.Header.Get("Accept")
	asJSON := wantsJSON(accept)
	invitation, err := decodeOOBParam(r.URL.Query().Get("oob"))
	var info invitationInfo
	if err == nil {
		info, err = parseInvitation(invitation)
	}
	if err != nil {
		if asJSON {
			writeError(w, http.StatusBadRequest, []string{"oob: not an out-of-band invitation (base64url of its JSON)"})
			return
		}
		writeProblemPage(w, r, http.StatusBadRequest, "Invitation link damaged",
			"This invitation link is incomplete or damaged; it may have been cut when it was copied.")
		return
	}
	if states != nil {
		state, err := states.InvitationState(r.Context(), info.ID)
		if g.invitationClosed(w, r, info.ID, state, err, asJSON) {
			return
		}
	}
	if asJSON {
		writeInvitationJSON(w, r, invitation)
		return
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	long := base + sep + "oob=" + base64.RawURLEncoding.EncodeToString(invitation)
	writeInvitationPage(w, r, long, long, invitation, info)
}

// invitationClosed answers for an invitation whose record is not waiting
// for a presentation any more, given the outcome of looking up the
// record's state, and reports whether it did: 404 when the verifier does
// not hold the record (as JSON or a page), and to browsers 410 when it was
// answered or closed. A failed lookup shows the invitation: only the
// page's wording depends on it.
func (g *Gateway) invitationClosed(w http.ResponseWriter, r *http.Request, invitationID, state string, err error, asJSON bool) bool {
	switch {
	case errors.Is(err, backend.ErrNotFound):
		if asJSON {
			writeError(w, http.StatusNotFound, "this invitation is unknown or has expired")
			return true
		}
		writeProblemPage(w, r, http.StatusNotFound, "Invitation not found",
			"This invitation is unknown or has expired.")
		return true
	case err != nil:
		g.Logger.Warn("looking up the record of an invitation", zap.String("invitation_id", invitationID), zap.Error(err))
	case asJSON:
	case state == backend.StatePresentationReceived || state == backend.StateDone:
		writeProblemPage(w, r, http.StatusGone, "Proof already shared",
			"This proof request has already been answered. Ask the verifier for a new link to share a proof again.")
		return true
	case state == backend.StateAbandoned:
		writeProblemPage(w, r, http.StatusGone, "Proof request closed",
			"This proof request was closed and can no longer be answered.")
		return true
	}
	return false
}

func writeInvitationJSON(w http.ResponseWriter, r *http.Request, invitation []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Add("Vary", "Accept")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(invitation)
	}
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
