package mail

import (
	"errors"
	"fmt"
	netmail "net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/proofgate/proofgate/internal/outbox"
)

// Message is one invitation e-mail to one recipient.
type Message struct {
	// ID identifies the message in the outbox and in its Message-ID header;
	// the caller generates it (a UUID), 1–200 letters, digits, '-', '_', '.'.
	ID string `json:"id"`
	// To is the recipient's bare address (a@b.c).
	To string `json:"to"`
	// OrgID, ProofRecordID and ThreadID say which proof request the mail
	// belongs to; they are not shown in the mail, only handed back to
	// onResult (and ProofRecordID is logged).
	OrgID         string `json:"orgId,omitempty"`
	ProofRecordID string `json:"proofRecordId,omitempty"`
	ThreadID      string `json:"threadId,omitempty"`
	// State is the record's state the mail belongs to (an invitation's:
	// the record's first, request-sent). With OrgID and ProofRecordID it
	// names the change the deliverer confirms before sending (change):
	// the mail is staged before that change is known to be stored, and a
	// record that never reached it gets no mail. Mails queued by older
	// versions have none and are sent unasked.
	State string `json:"state,omitempty"`
	// InvitationURL is the link the mail carries and its QR code encodes;
	// pass the short URL when there is one (long URLs make dense QR codes,
	// and past about 2,900 bytes none can be drawn: the mail then has the
	// link only).
	InvitationURL string `json:"invitationUrl"`
	// Label names the verifier in the text ("<Label> asks you to share…").
	Label string `json:"label,omitempty"`
	// CreatedAt is set by Enqueue when zero.
	CreatedAt time.Time `json:"createdAt"`
	// Sender fingerprints the email block that queued it (Config.senderID,
	// set by Deliverer.Enqueue): its deliverer sends it (sender.go).
	Sender string `json:"sender,omitempty"`
}

// Size caps of the fields, so one outbox document stays small.
const (
	maxAddressLen = 254
	maxURLLen     = 8 << 10
	maxLabelLen   = 200
	maxIDLen      = 200
)

func (m *Message) validate() error {
	var errs []error
	if !validName(m.ID) {
		errs = append(errs, fmt.Errorf("mail: message id %q is not 1-%d letters, digits, '-', '_' or '.'", m.ID, maxIDLen))
	}
	if err := checkRecipient(m.To); err != nil {
		errs = append(errs, err)
	}
	if len(m.InvitationURL) > maxURLLen {
		errs = append(errs, fmt.Errorf("mail: invitation URL longer than %d bytes", maxURLLen))
	} else if u, err := url.Parse(m.InvitationURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, errors.New("mail: invitation URL must be an absolute http(s) URL"))
	}
	if len(m.Label) > maxLabelLen || strings.ContainsAny(m.Label, "\r\n") {
		errs = append(errs, fmt.Errorf("mail: label must be one line of at most %d bytes", maxLabelLen))
	}
	for _, s := range []string{m.OrgID, m.ProofRecordID, m.ThreadID, m.State} {
		if len(s) > maxIDLen {
			errs = append(errs, fmt.Errorf("mail: identifier longer than %d bytes", maxIDLen))
			break
		}
	}
	return errors.Join(errs...)
}

// change is the state change the mail belongs to, for the delivery-time
// check every notification makes (outbox.ConfirmFunc.Check).
func (m *Message) change() outbox.Change {
	return outbox.Change{OrgID: m.OrgID, RecordID: m.ProofRecordID, State: m.State}
}

// checkRecipient accepts one bare address; the error does not repeat it
// (addresses are personal data and errors end up in logs).
func checkRecipient(to string) error {
	if to == "" || len(to) > maxAddressLen {
		return errors.New("mail: recipient must be one address of at most 254 bytes")
	}
	a, err := netmail.ParseAddress(to)
	if err != nil || a.Name != "" || a.Address != to {
		return errors.New("mail: recipient is not a bare e-mail address")
	}
	return nil
}

// State is where a message is in its delivery (the shared outbox's).
type State = outbox.State

// States of a message.
const (
	// StateQueued waits for its next attempt (at Status.NextAttempt).
	StateQueued = outbox.StateQueued
	// StateSending is claimed by a deliverer that is talking to the server.
	StateSending = outbox.StateSending
	// StateSent was accepted by the SMTP server.
	StateSent = outbox.StateSent
	// StateFailed was rejected permanently or ran out of attempts.
	StateFailed = outbox.StateFailed
)

// Status is the delivery state of a message. Its JSON is meant to be copied
// onto the proof record's metadata. LastError describes the last failure
// without personal data: the SMTP stage and reply code, or the network/TLS
// error.
type Status = outbox.Status

// document is the typed view of what the outbox stores per message
// (outbox.Document with an e-mail payload): proofgate/outbox/<id>.json.
type document struct {
	Kind    string  `json:"kind,omitempty"`
	Message Message `json:"message"`
	Status  Status  `json:"status"`
	// LeaseUntil bounds a "sending" claim: past it, the deliverer that
	// claimed the message is presumed dead and another may try again.
	LeaseUntil time.Time `json:"leaseUntil,omitzero"`
}

func validName(name string) bool {
	if name == "" || len(name) > maxIDLen || name == "." || name == ".." {
		return false
	}
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}
