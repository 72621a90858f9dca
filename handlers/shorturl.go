package handlers

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
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
	short, stored, err := g.resolveShortURL(r.Context(), id)
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
		writeBackendError(w, r, g.Logger, "", err)
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
		} else {
			state, err := short.State, error(nil)
			if stored {
				state, err = g.storedShortURLState(r.Context(), info.ID, short.Invitation)
			}
			if (state != "" || err != nil) && g.invitationClosed(w, r, info.ID, state, err, false) {
				return
			}
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
// carries its record's state, read with it; stored says the short URL is
// a document of its own, whose answer carries no state
// (storedShortURLState finds it).
func (g *Gateway) resolveShortURL(ctx context.Context, id string) (short backend.ShortURL, stored bool, err error) {
	for _, b := range g.Backends.All() {
		if k, ok := b.(backend.ShortURLKeeper); ok {
			short, err := k.ResolveShortURL(ctx, id)
			if !errors.Is(err, backend.ErrNotFound) {
				return short, false, err
			}
		}
	}
	e, err := g.ShortURLs.Resolve(ctx, id)
	if errors.Is(err, shorturl.ErrNotFound) {
		return backend.ShortURL{}, false, backend.ErrNotFound
	}
	return backend.ShortURL{Invitation: e.Invitation, LongURL: e.LongURL}, true, err
}

// storedShortURLState is the state of the record behind the invitation of
// a short URL stored as a document of its own (internal/shorturl), as
// earlier versions stored the local verifier's too: the backends that
// tell their invitations' state (InvitationStater) are asked, and the
// first whose record holds that very invitation answers. "" when none
// does: an agent's invitation, whose state is not known here (nor that of
// a local record since deleted), is shown as before. A failed lookup is
// returned, for the page to be shown all the same (invitationClosed).
func (g *Gateway) storedShortURLState(ctx context.Context, invitationID string, invitation []byte) (string, error) {
	for _, b := range g.Backends.All() {
		states, ok := b.(InvitationStater)
		if !ok {
			continue
		}
		state, err := invitationState(ctx, states, invitationID, invitation)
		if !errors.Is(err, backend.ErrNotFound) {
			return state, err
		}
	}
	return "", nil
}

// InvitationStater tells the state of the proof record behind an
// invitation the local verifier made (backend.ErrNotFound when there is
// none), so the page of a used, expired or deleted invitation can say so,
// and the invitation JSON the record holds, so that only that invitation
// is shown under the verifier's name: the @id is derived from the record
// id by a public mask, and anyone with a record id could put it in an
// invitation of their own. The state is the one the page shows: a record
// whose invitation expired is abandoned.
type InvitationStater interface {
	InvitationState(ctx context.Context, invitationID string) (state string, invitation json.RawMessage, err error)
}

// invitationState asks states about the invitation with the id
// invitationID, whose JSON is invitation: backend.ErrNotFound, as for an
// unknown invitation, unless the record behind it holds that invitation
// (sameInvitation).
func invitationState(ctx context.Context, states InvitationStater, invitationID string, invitation []byte) (string, error) {
	state, stored, err := states.InvitationState(ctx, invitationID)
	if err != nil {
		return "", err
	}
	if !sameInvitation(invitation, stored) {
		return "", backend.ErrNotFound
	}
	return state, nil
}

// sameInvitation reports whether a link's invitation is the one a record
// holds: byte for byte, proofgate having written both, but for the
// escapes of <, >, & and U+2028/U+2029 in JSON strings, which the
// record's storage writes (as json.Marshal does) and the long URL does
// not. Invitations equal so read as the same JSON, token for token.
func sameInvitation(link, stored []byte) bool {
	if bytes.Equal(link, stored) {
		return true
	}
	var a, b bytes.Buffer
	json.HTMLEscape(&a, link)
	json.HTMLEscape(&b, stored)
	return bytes.Equal(a.Bytes(), b.Bytes())
}

// ServeInvitationLink serves GET <public_url>?oob=…, the long invitation
// URL, when a browser opens it: the invitation page (or JSON, to clients
// that ask for it). The invitation is in the URL itself; base is the
// public URL it was made for; states tells whether its record is still
// waiting for an answer, and an invitation that is not the one its record
// holds is answered as an unknown one (404), as is every invitation when
// states is nil: the page shows only invitations a verifier vouches for.
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
	state, err := "", error(backend.ErrNotFound)
	if states != nil {
		state, err = invitationState(r.Context(), states, info.ID, invitation)
	}
	if err != nil && !errors.Is(err, backend.ErrNotFound) {
		// The link carries its invitation, which anyone can write: one
		// no verifier could vouch for is not shown (a short URL's comes
		// from storage, and is).
		g.Logger.Warn("looking up the record of an invitation", zap.String("invitation_id", info.ID), zap.Error(err))
		if asJSON {
			writeError(w, http.StatusServiceUnavailable, "the invitation cannot be looked up right now; try again")
			return
		}
		writeProblemPage(w, r, http.StatusServiceUnavailable, "Invitation not available",
			"The verifier cannot look this invitation up right now. Try again in a moment.")
		return
	}
	if g.invitationClosed(w, r, info.ID, state, err, asJSON) {
		return
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
func wantsJSON(accept string) bool { return acceptsAny(accept, "application/json") }
