package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/bodyread"
	"github.com/proofgate/proofgate/internal/metrics"
	"github.com/proofgate/proofgate/internal/outbox"
	"github.com/proofgate/proofgate/internal/validate"
)

// oobData is data of 4.1's success envelope (one recipient, or none).
type oobData struct {
	ProofRecordID     string          `json:"proofRecordId"`
	ProofRecordThID   string          `json:"proofRecordThId"`
	OutOfBandID       string          `json:"outOfBandId"`
	InvitationURL     string          `json:"invitationUrl"`
	LongInvitationURL string          `json:"longInvitationUrl"`
	Invitation        json.RawMessage `json:"invitation"`
}

// SendOutOfBandRequest serves POST /orgs/{orgId}/proofs/oob.
func (g *Gateway) SendOutOfBandRequest(w http.ResponseWriter, r *http.Request, orgID string) {
	principal, ok := g.authenticate(w, r)
	if !ok {
		return
	}
	if err := validate.OrgID(orgID); err != nil {
		writeInvalid(w, err.Error())
		return
	}
	if !principal.Authorize(orgID, g.AllowedRoles) {
		writeForbidden(w)
		return
	}
	body, ok := g.readJSONBody(w, r)
	if !ok {
		return
	}
	requestType, n := queryParam(r.URL.RawQuery, "requestType")
	if n > 1 {
		writeInvalid(w, "requestType: give it once")
		return
	}
	// The request shares body's memory; body is not modified after this.
	// The problems live in the validator's buffers until held.Release():
	// they are counted and answered first.
	req, problems, held := g.Validator.CheckOOBHeld(requestType, body)
	if problems != nil {
		metrics.ValidationFailures(problems)
		writeProblems(w, http.StatusBadRequest, problems)
		held.Release()
		return
	}
	held.Release()
	if len(req.Emails) > 0 && g.Mail == nil {
		writeInvalid(w, "emailId: e-mail delivery is not configured on this gateway (add an email block)")
		return
	}
	if req.IsShortenURL && g.ShortURLs == nil {
		writeInvalid(w, "isShortenUrl: short URLs are not configured on this gateway (set public_url)")
		return
	}

	b, org, ok := g.Backends.Route(orgID)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("org %s is not served by this gateway", orgID))
		return
	}
	g.noteBackend(w, b, orgID)
	if n := noteOf(w); n != nil {
		n.Recipients = req.Emails
	}
	if _, keeps := b.(backend.ShortURLKeeper); keeps && req.IsShortenURL {
		// The short URL goes into the record's own write.
		req.ShortURLExpiresAt = g.ShortURLs.ExpiresAt()
	}
	c := &creation{g: g, b: b, org: org, req: req}
	c.done = c.first[:0]
	ctx := changesContext(w, r) // w, not the idempotency recorder: it has the note
	g.idempotent(w, r, principal, orgID, body, func(w http.ResponseWriter) { g.create(ctx, w, r, c) })
}

// CreateDeadline bounds a create to several recipients, every recipient's
// proof request included. The messages a create stages (its mails, its
// webhooks) are held until it commits, and delivered anyway once
// outbox.DefaultHold ends (the release lost with a process): a create
// still running then could no longer withdraw them, and recipients would
// be sent invitations for records it then discards. So it ends a minute
// before the hold. One proof request alone is bounded by its backend's
// timeouts (an agent's two calls, 15 s each by default), well within it.
const CreateDeadline = outbox.DefaultHold - time.Minute

// createDeadline is CreateDeadline; tests shorten it.
var createDeadline = CreateDeadline

// create makes the proof request(s) of one HTTP request and answers it;
// ctx is the request's, collecting the changes for its log line.
func (g *Gateway) create(ctx context.Context, w http.ResponseWriter, r *http.Request, c *creation) {
	req := c.req
	if len(req.Emails) == 0 {
		if err := c.one(ctx, ""); err != nil {
			c.undo(r)
			writeBackendError(w, r, g.Logger, "", err)
			return
		}
		c.commit()
		d := c.done[0]
		writeCreatedOne(w, oobData{
			ProofRecordID:     d.result.ProofRecord.ID,
			ProofRecordThID:   d.result.ProofRecord.ThreadID,
			OutOfBandID:       d.result.OutOfBandID,
			InvitationURL:     d.url,
			LongInvitationURL: d.result.InvitationURL,
			Invitation:        d.result.Invitation,
		})
		return
	}

	ctx, cancel := context.WithTimeout(ctx, createDeadline)
	defer cancel()
	recipients := make([]recipient, 0, len(req.Emails))
	for i, to := range req.Emails {
		err := ctx.Err()
		if err == nil {
			err = c.one(ctx, to)
		}
		if err != nil {
			c.undo(r)
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				writeError(w, http.StatusGatewayTimeout, fmt.Sprintf("the request ran past its time limit (%s) after %d of %d recipients; none was kept, retry with fewer", createDeadline, i, len(req.Emails)))
				return
			}
			writeBackendError(w, r, g.Logger, "", err)
			return
		}
		d := c.done[len(c.done)-1]
		recipients = append(recipients, recipient{
			Email:           to,
			ProofRecordID:   d.result.ProofRecord.ID,
			ProofRecordThID: d.result.ProofRecord.ThreadID,
			InvitationURL:   d.url,
			EmailStatus:     "queued",
		})
	}
	c.commit()
	ids := make([]string, 0, len(c.done))
	for _, d := range c.done {
		if d.mailID != "" {
			ids = append(ids, d.mailID)
		}
	}
	g.Mail.Release(ids...)
	writeCreated(w, recipientsData{Recipients: recipients})
}

// recipientsData is data of 4.1's success envelope with emailId: one proof
// request per recipient.
type recipientsData struct {
	Recipients []recipient `json:"recipients"`
}

type recipient struct {
	Email           string `json:"email"`
	ProofRecordID   string `json:"proofRecordId"`
	ProofRecordThID string `json:"proofRecordThId"`
	InvitationURL   string `json:"invitationUrl"`
	// EmailStatus is "queued": the mail is stored and will be delivered
	// with retries; its outcome is noted on the record's metadata.
	EmailStatus string `json:"emailStatus"`
}

func writeCreated(w http.ResponseWriter, data any) {
	writeJSON(w, http.StatusCreated, successBody{
		StatusCode: http.StatusCreated,
		Success:    true,
		Message:    "Proof request sent successfully.",
		Data:       data,
	})
}

// readJSONBody checks the content type (415) and reads the body up to the
// size cap (413).
func (g *Gateway) readJSONBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if !isJSON(auth.Header(r.Header, "Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
		return nil, false
	}
	body, err := bodyread.Read(w, r, bodyread.Limits{Max: g.MaxBodySize, Timeout: g.BodyTimeout})
	switch {
	case err == nil:
		return body, true
	case errors.Is(err, bodyread.ErrTooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body must not exceed %d bytes", g.MaxBodySize))
	case errors.Is(err, bodyread.ErrTimeout):
		writeError(w, http.StatusRequestTimeout, "the body did not arrive in time")
	default:
		writeInvalid(w, "body: could not be read")
	}
	return nil, false
}

// isJSON accepts application/json and any application/*+json type.
func isJSON(contentType string) bool {
	if contentType == "application/json" {
		return true // what nearly every client sends: no parsing needed
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	if mt == "application/json" {
		return true
	}
	sub, ok := strings.CutPrefix(mt, "application/")
	return ok && len(sub) > len("+json") && strings.HasSuffix(sub, "+json")
}
