package mail

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/outbox"
	"github.com/proofgate/proofgate/internal/redact"
)

// Interface guard: a Deliverer can be a caddy.UsagePool value.
var _ caddy.Destructor = (*Deliverer)(nil)

// leaseGrace is added to the SMTP timeout for a "sending" claim, so a live
// deliverer always records its outcome before its claim expires.
const leaseGrace = 2 * time.Minute

// Deliverer sends the outbox's e-mails: the shared outbox deliverer
// (internal/outbox) with the SMTP delivery function for kind "email". One
// Deliverer per SMTP configuration and storage is enough; it may be kept
// across config reloads, and stopped and started again.
type Deliverer struct {
	*outbox.Deliverer
	cfg      Config
	outbox   *Outbox
	logger   *zap.Logger
	onResult func(Message, Status)
	composer *composer
	smtp     *smtpSender
	// sender is the fingerprint queued mails carry (Config.senderID).
	sender  string
	started bool // in runningSenders; guarded by startMu
	startMu sync.Mutex

	// Seams for tests; set before Start.
	now       func() time.Time
	backoff   func(attempt int) time.Duration
	afterPeek func(id string)
}

// NewDeliverer prepares a deliverer of outbox's messages with cfg (which
// must have passed Validate). onResult, if not nil, is called after each
// attempt that failed (Status.State queued, with LastError: another attempt
// will follow) and after each final outcome (sent or failed). It runs on
// the delivery worker, so it must return quickly: bound its storage writes
// with a short timeout. A panic in it is recovered and logged.
func NewDeliverer(cfg Config, ob *Outbox, logger *zap.Logger, onResult func(Message, Status)) (*Deliverer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if logger == nil {
		logger = zap.NewNop()
	}
	comp, err := newComposer(cfg)
	if err != nil {
		return nil, err
	}
	smtp, err := newSMTPSender(cfg)
	if err != nil {
		return nil, err
	}
	d := &Deliverer{
		cfg:      cfg,
		outbox:   ob,
		logger:   logger,
		onResult: onResult,
		composer: comp,
		smtp:     smtp,
		sender:   cfg.senderID(),
		now:      time.Now,
	}
	d.backoff = d.defaultBackoff
	d.Deliverer = outbox.NewDeliverer(ob.box, outbox.Options{
		Workers:     cfg.Workers,
		MaxAttempts: cfg.MaxAttempts,
		Retention:   time.Duration(cfg.Retention),
		Lease:       time.Duration(cfg.Timeout) + leaseGrace,
		DefaultKind: Kind,
		Logger:      logger,
		OnResult:    d.result,
		Mine:        d.mine,
		// Through the seams, so tests may set them after NewDeliverer.
		Now:     func() time.Time { return d.now() },
		Backoff: func(attempt int) time.Duration { return d.backoff(attempt) },
		AfterPeek: func(id string) {
			if d.afterPeek != nil {
				d.afterPeek(id)
			}
		},
	})
	d.Handle(Kind, d.deliverWith(nil), nil)
	return d, nil
}

// Subscribe makes fn hear every outcome onResult hears (after it), until
// remove, and makes confirm the check of the mails sent meanwhile: a
// mail that names its record's state is sent only once confirm says the
// record has been in it (outbox.ConfirmFunc.Check), as webhooks are. The
// configs sharing a pooled deliverer (successive ones across a reload,
// and several sites on one storage) each subscribe in Provision and
// remove in Cleanup: every subscription hears every outcome, newest
// first, and notes those of its own; the newest subscription's confirm
// is asked, since its backends are the current ones; a config Caddy
// refused after provisioning it stops hearing them at its Cleanup. fn and
// confirm may be nil; remove may be called more than once.
func (d *Deliverer) Subscribe(fn func(Message, Status), confirm outbox.ConfirmFunc) (remove func()) {
	var result outbox.ResultFunc
	if fn != nil {
		result = func(e outbox.Entry, s outbox.Status) {
			if m, ok := d.decode(e); ok {
				fn(m, s)
			}
		}
	}
	return d.Handle(Kind, d.deliverWith(confirm), result)
}

// Outbox returns the outbox this deliverer sends from.
func (d *Deliverer) Outbox() *Outbox { return d.outbox }

// scanNow asks for a scan of the whole outbox.
func (d *Deliverer) scanNow() { d.ScanNow() }

// deliverWith is the outbox delivery function of kind "email" that asks
// confirm (nil: nobody) before it sends.
func (d *Deliverer) deliverWith(confirm outbox.ConfirmFunc) outbox.DeliverFunc {
	return func(ctx context.Context, e outbox.Entry) error { return d.deliver(ctx, e, confirm) }
}

// deliver sends one mail, once confirm has confirmed its record's change.
func (d *Deliverer) deliver(ctx context.Context, e outbox.Entry, confirm outbox.ConfirmFunc) error {
	var m Message
	if err := e.Decode(&m); err != nil {
		return outbox.Permanent(&outbox.Failure{Public: "undecodable message", Err: err})
	}
	if err := confirm.Check(ctx, e, m.change(), d.logger); err != nil {
		return err
	}
	d.logger.Info("email: sending",
		zap.String("message_id", e.ID),
		zap.String("proof_record_id", m.ProofRecordID),
		zap.Int("attempt", e.Attempt))
	if c := d.logger.Check(zap.DebugLevel, "email: recipient"); c != nil {
		// The domain only: an address is personal data, and logs travel.
		c.Write(zap.String("message_id", e.ID), zap.String("to", redact.Email(m.To)))
	}
	if aerr := d.attempt(m); aerr != nil {
		return &outbox.Failure{Permanent: aerr.permanent, Public: aerr.text, Err: aerr.err}
	}
	return nil
}

// result hands an outcome to onResult with the message decoded.
func (d *Deliverer) result(e outbox.Entry, s outbox.Status) {
	if d.onResult == nil {
		return
	}
	if m, ok := d.decode(e); ok {
		d.onResult(m, s)
	}
}

func (d *Deliverer) decode(e outbox.Entry) (Message, bool) {
	var m Message
	if err := json.Unmarshal(e.Message, &m); err != nil {
		d.logger.Error("email: undecodable message in the outbox", zap.String("message_id", e.ID), zap.Error(err))
		return m, false
	}
	return m, true
}

// defaultBackoff doubles retry_backoff per failed attempt up to maxBackoff
// (or retry_backoff, if larger), with jitter (outbox.Backoff).
func (d *Deliverer) defaultBackoff(attempt int) time.Duration {
	return outbox.Backoff(time.Duration(d.cfg.RetryBackoff), maxBackoff, attempt)
}

// Enqueue stores m for delivery by this deliverer, as its sender (see
// Outbox.Enqueue and sender.go).
func (d *Deliverer) Enqueue(ctx context.Context, m Message) error {
	m.Sender = d.sender
	return d.outbox.Enqueue(ctx, m)
}

// Start starts the workers and makes this deliverer's sender known as
// running (sender.go). Starting a started deliverer does nothing.
func (d *Deliverer) Start() {
	d.startMu.Lock()
	defer d.startMu.Unlock()
	if !d.started {
		runningSenders.Add(d.outbox.key, d)
		d.started = true
	}
	d.Deliverer.Start()
}

// Stop stops the workers; other deliverers of the queue then send the
// mails this one's sender leaves, if no other deliverer of it runs.
func (d *Deliverer) Stop() {
	d.startMu.Lock()
	defer d.startMu.Unlock()
	d.Deliverer.Stop()
	if d.started {
		d.started = false
		stopped(d)
	}
}

// Destruct stops the deliverer (caddy.Destructor).
func (d *Deliverer) Destruct() error {
	d.Stop()
	return nil
}
