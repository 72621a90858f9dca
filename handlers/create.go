package handlers

import (
	"context"
	"errors"
	"net/http"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
)

// Mailer queues invitation e-mails for delivery. Queue must make the mail
// durable (it will be attempted even across restarts) before it returns.
type Mailer interface {
	Queue(ctx context.Context, m InvitationMail) (mailID string, err error)
	// Cancel undoes a Queue whose request failed afterwards.
	Cancel(ctx context.Context, mailID string) error
	// Release says the request that queued mailIDs has succeeded: those
	// mails may go. A queued mail is held until then, so that another
	// request's success never sends the mails of one that may still fail
	// and cancel them.
	Release(mailIDs ...string)
}

// InvitationMail is one recipient's invitation.
type InvitationMail struct {
	To            string
	OrgID         string
	ProofRecordID string
	ThreadID      string
	InvitationURL string
	Label         string
}

// created is one proof request made for this HTTP request, with what it
// takes to undo it.
type created struct {
	result  backend.OOBResult
	url     string // the invitation URL handed out: short or long
	shortID string // a short URL stored as a document of its own
	mailID  string
	// staged are the notifications of the record's creation, released
	// when the whole request has succeeded.
	staged backend.Staged
}

// creation makes the proof requests of one HTTP request: one, or one per
// e-mail recipient (an out-of-band proof request is single-use). If any
// step fails, undo removes everything made so far.
type creation struct {
	g    *Gateway
	b    backend.Backend
	org  backend.Org
	req  backend.OOBRequest
	done []created
	// first backs done for the usual single proof request, saving an
	// allocation.
	first [1]created
}

// one makes a proof request, its short URL if asked, and its mail if to is
// not empty.
func (c *creation) one(ctx context.Context, to string) error {
	res, err := c.b.SendOutOfBandRequest(ctx, c.org, c.req)
	if err != nil {
		return err
	}
	// Recorded before the later steps, so that undo also removes it.
	c.done = append(c.done, created{result: res, url: res.InvitationURL})
	last := &c.done[len(c.done)-1]
	switch {
	case !c.req.IsShortenURL:
	case res.ShortURLID != "":
		// Kept in the record: it goes when the record goes.
		last.url = c.g.ShortURLBase + res.ShortURLID
	default:
		id, _, err := c.g.ShortURLs.Create(ctx, c.org.ID, res.InvitationURL, res.Invitation)
		if err != nil {
			return err
		}
		last.shortID, last.url = id, c.g.ShortURLBase+id
	}
	if to != "" {
		id, err := c.g.Mail.Queue(ctx, InvitationMail{
			To: to, OrgID: c.org.ID, ProofRecordID: res.ProofRecord.ID, ThreadID: res.ProofRecord.ThreadID,
			InvitationURL: last.url, Label: c.req.Label,
		})
		if err != nil {
			return mailRefusal(err)
		}
		last.mailID = id
	}
	staged, err := c.g.stageCreation(ctx, c.b, res.ProofRecord)
	if err != nil {
		return err
	}
	last.staged = staged
	return nil
}

// commit releases the creation notifications of every record made.
func (c *creation) commit() {
	for _, d := range c.done {
		if d.staged != nil {
			d.staged.Commit()
		}
	}
}

// undo removes, newest first, every record, short URL and queued mail this
// request made, where the parts allow it. It runs after the caller may have
// gone, so it does not use the request's context.
func (c *creation) undo(r *http.Request) {
	ctx := context.WithoutCancel(r.Context())
	// The held messages first, every one: discarding a record at an agent
	// can take up to its timeout each, and a create that ran into its
	// deadline has a minute left before the first recipient's held mail
	// and webhook would go out anyway.
	for _, d := range c.done {
		if d.staged != nil {
			d.staged.Abort(ctx)
		}
		if d.mailID != "" {
			if err := c.g.Mail.Cancel(ctx, d.mailID); err != nil {
				c.g.Logger.Error("cancelling the mail of a failed request", zap.String("mail_id", d.mailID), zap.Error(err))
			}
		}
	}
	for i := len(c.done) - 1; i >= 0; i-- {
		d := c.done[i]
		if d.shortID != "" {
			if err := c.g.ShortURLs.Delete(ctx, d.shortID); err != nil {
				c.g.Logger.Error("deleting the short URL of a failed request", zap.Error(err))
			}
		}
		id := d.result.ProofRecord.ID
		err := errors.ErrUnsupported
		if dis, ok := c.b.(backend.Discarder); ok {
			err = dis.DiscardRecord(ctx, c.org, d.result)
		}
		switch {
		case errors.Is(err, errors.ErrUnsupported):
			c.g.Logger.Warn("the agent keeps the record of a failed request and its invitation (proofgate cannot delete them there); no client has the invitation",
				zap.String("proof_record_id", id), zap.String("thread_id", d.result.ProofRecord.ThreadID))
		case err != nil:
			c.g.Logger.Error("discarding the record of a failed request", zap.String("proof_record_id", id), zap.Error(err))
		}
	}
	c.done = nil
}

// mailRefusal maps an error of Mailer.Queue: storage failures stay what
// they are (503), and anything else is the mail layer refusing what this
// request asked for, a 400, never a 500. Validation already refuses what
// the mail layer cannot carry; this is the net under it.
func mailRefusal(err error) error {
	if errors.Is(err, backend.ErrUnavailable) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &backend.UnsupportedError{Field: "emailId", Message: "the invitation e-mail cannot be sent: " + err.Error()}
}
