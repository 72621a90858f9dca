package proofgate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/handlers"
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/mail"
	"github.com/proofgate/proofgate/internal/metrics"
	"github.com/proofgate/proofgate/internal/secret"
	"github.com/proofgate/proofgate/internal/store"
)

// mailPool keeps one e-mail deliverer per SMTP configuration and storage
// across config reloads: Caddy provisions the new config before cleaning
// up the old, so the queue is never left without workers, and the last
// Cleanup stops them. Outcomes go to the newest handler still provisioned
// (mail.Deliverer.Subscribe), whose backends are the current ones.
var mailPool = caddy.NewUsagePool()

// provisionMail resolves the email block's placeholders, checks it, and
// attaches this handler to the pooled deliverer for it.
func (h *Handler) provisionMail(ctx caddy.Context, storage certmagic.Storage) error {
	cfg := *h.Email
	secret.WarnLiteral(h.logger, "email password", cfg.Password)
	repl := caddy.NewReplacer()
	for name, field := range map[string]*string{"smtp": &cfg.SMTP, "username": &cfg.Username, "password": &cfg.Password, "from": &cfg.From} {
		v, err := repl.ReplaceOrErr(*field, true, true)
		if err != nil {
			return fmt.Errorf("email: %s: %v", name, err)
		}
		*field = v
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	key, err := mailPoolKey(cfg, storage)
	if err != nil {
		return err
	}
	logger := h.logger.Named("mail")
	val, _, err := mailPool.LoadOrNew(key, func() (caddy.Destructor, error) {
		// Counted once per outcome here, by the pooled deliverer: every
		// handler sharing it hears every outcome (recordMailOutcome).
		d, err := mail.NewDeliverer(cfg, mail.NewOutbox(storage, cfg.Queue), logger, func(_ mail.Message, s mail.Status) {
			metrics.MailAttempt(mailOutcome(s))
		})
		if err != nil {
			return nil, err
		}
		d.Start()
		return d, nil
	})
	if err != nil {
		return err
	}
	h.mailKey = key
	d := val.(*mail.Deliverer)
	// Withdrawn in Cleanup (detachMail): if Caddy refuses this config, the
	// running one hears the outcomes again. A mail is confirmed before it
	// is sent (confirmInvitationMail): one of a record that never reached
	// its state, or no longer exists, is dropped.
	h.gw.Mail = &mailer{d: d, unsubscribe: d.Subscribe(h.recordMailOutcome, h.confirmInvitationMail)}
	return nil
}

// detachMail withdraws this handler's outcome function from the pooled
// deliverer (Cleanup); it tolerates a handler whose Provision failed
// early.
func (h *Handler) detachMail() {
	if h.gw == nil {
		return
	}
	if m, ok := h.gw.Mail.(*mailer); ok && m.unsubscribe != nil {
		m.unsubscribe()
	}
}

// mailPoolKey identifies a deliverer: its whole (resolved) configuration
// and the storage its outbox is in. Hashed, since it holds the password.
func mailPoolKey(cfg mail.Config, storage certmagic.Storage) (string, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append(b, store.Identity(storage)...))
	return "mail:" + hex.EncodeToString(sum[:]), nil
}

// recordMailOutcome notes a delivery outcome on the proof record's
// metadata ("email"), where the record's backend keeps records itself. It
// runs on a delivery worker, so its write is bounded.
func (h *Handler) recordMailOutcome(m mail.Message, s mail.Status) {
	// Every handler sharing the deliverer hears every outcome (two sites
	// on one storage); each notes those of the orgs it serves.
	b, _, ok := h.gw.Backends.Route(m.OrgID)
	if !ok {
		return
	}
	setter, ok := b.(backend.MetadataSetter)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := setter.SetRecordMetadata(ctx, m.ProofRecordID, "email", s); err != nil {
		h.logger.Warn("noting an e-mail outcome on the proof record",
			zap.String("proof_record_id", m.ProofRecordID), zap.String("mail_id", m.ID), zap.Error(err))
	}
}

// mailOutcome is the metrics label of a delivery outcome: retry, sent
// or failed.
func mailOutcome(s mail.Status) string {
	if s.State.Final() {
		return string(s.State)
	}
	return "retry"
}

// mailer adapts the deliverer to handlers.Mailer.
type mailer struct {
	d           *mail.Deliverer
	unsubscribe func()
}

// Queue implements handlers.Mailer. An invitation is queued only by the
// create that made its record, so the state it confirms before it is sent
// is the record's first (handlers' createdState).
func (m *mailer) Queue(ctx context.Context, im handlers.InvitationMail) (string, error) {
	id := uuid.NewString()
	err := m.d.Enqueue(ctx, mail.Message{
		ID: id, To: im.To, OrgID: im.OrgID, ProofRecordID: im.ProofRecordID, ThreadID: im.ThreadID,
		State:         backend.StateRequestSent,
		InvitationURL: im.InvitationURL, Label: im.Label, CreatedAt: time.Now().UTC(),
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

func (m *mailer) Cancel(ctx context.Context, id string) error { return m.d.Outbox().Cancel(ctx, id) }

// Release implements handlers.Mailer: those mails, and no other
// request's, are sent.
func (m *mailer) Release(mailIDs ...string) {
	if len(mailIDs) > 0 {
		m.d.Notify(mailIDs...)
	}
}

// confirmInvitationMail tells whether an invitation mail may go out: its
// record reached its state, as a webhook event's must (confirmChange),
// and, where the backend keeps its own records (the local verifier), the
// record still exists for the mail's org. Unlike an event, which tells of
// something that happened, an invitation is only worth sending while its
// record can be answered: one a failed create discarded (its mail's
// withdrawal failed too) or one deleted after its retention cannot.
// Agents' records are not looked up: that would be a call to the agent
// per mail.
func (h *Handler) confirmInvitationMail(ctx context.Context, orgID, recordID, state string) (bool, error) {
	reached, err := h.confirmChange(ctx, orgID, recordID, state)
	if err != nil || !reached {
		return reached, err
	}
	b, _, ok := h.gw.Backends.Route(orgID)
	if !ok {
		return true, nil
	}
	if _, keepsRecords := b.(backend.ChangeConfirmer); !keepsRecords {
		return true, nil
	}
	owner, err := b.RecordOrg(ctx, recordID)
	if errors.Is(err, backend.ErrNotFound) {
		return false, nil
	}
	return err == nil && owner == orgID, err
}
