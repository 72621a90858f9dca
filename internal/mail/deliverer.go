package mail

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// Interface guard: a Deliverer can be a caddy.UsagePool value.
var _ caddy.Destructor = (*Deliverer)(nil)

// Defaults of the deliverer's internal timings.
const (
	// rescanInterval is how often the whole outbox is read again: to find
	// messages other instances (or other Outbox values) enqueued, claims
	// that expired, and finished messages past their retention.
	rescanInterval = time.Minute
	// leaseGrace is added to the SMTP timeout for a "sending" claim, so a
	// live deliverer always records its outcome before its claim expires.
	leaseGrace = 2 * time.Minute
	// storageRetry is the wait after a storage error or a lock held elsewhere.
	storageRetry = 5 * time.Second
	// storageTimeout bounds the writes of an attempt's outcome, which run
	// even while the deliverer stops.
	storageTimeout = 15 * time.Second
)

// Deliverer sends the outbox's messages: Workers goroutines, fed by a
// scheduler that knows when each message is next due. One Deliverer per
// SMTP configuration and storage is enough; it may be kept across config
// reloads, and stopped and started again.
type Deliverer struct {
	cfg      Config
	outbox   *Outbox
	logger   *zap.Logger
	onResult func(Message, Status)
	composer *composer
	sender   *smtpSender

	// Seams for tests; set before Start.
	now     func() time.Time
	backoff func(attempt int) time.Duration
	rescan  time.Duration
	lease   time.Duration
	// afterPeek runs between the unlocked read of a due message and the
	// locked claim (tests make two deliverers meet there).
	afterPeek func(id string)

	notify    chan struct{}
	kick      chan struct{}
	rescanNow chan struct{}

	mu      sync.Mutex // guards cancel and done (Start/Stop)
	cancel  context.CancelFunc
	done    chan struct{}
	sched   map[string]time.Time // id → when it is next due
	running map[string]bool      // ids handed to a worker
	// finished remembers sent/failed messages until their retention ends,
	// so rescans do not read them again.
	finished map[string]time.Time
}

// NewDeliverer prepares a deliverer of outbox's messages with cfg (which
// must have passed Validate). onResult, if not nil, is called after each
// attempt that failed (Status.State queued, with LastError: another attempt
// will follow) and after each final outcome (sent or failed). It runs on
// the delivery worker, so it must return quickly: bound its storage writes
// with a short timeout. A panic in it is recovered and logged.
func NewDeliverer(cfg Config, outbox *Outbox, logger *zap.Logger, onResult func(Message, Status)) (*Deliverer, error) {
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
	sender, err := newSMTPSender(cfg)
	if err != nil {
		return nil, err
	}
	d := &Deliverer{
		cfg:       cfg,
		outbox:    outbox,
		logger:    logger,
		onResult:  onResult,
		composer:  comp,
		sender:    sender,
		now:       time.Now,
		rescan:    rescanInterval,
		lease:     time.Duration(cfg.Timeout) + leaseGrace,
		notify:    make(chan struct{}, 1),
		kick:      make(chan struct{}, 1),
		rescanNow: make(chan struct{}, 1),
	}
	d.backoff = d.defaultBackoff
	return d, nil
}

// Outbox returns the outbox this deliverer sends from.
func (d *Deliverer) Outbox() *Outbox { return d.outbox }

// Start starts the workers. They first read the whole outbox (messages left
// by an earlier process included), then wait for Notify, the next due
// message, or the periodic rescan. Starting a started deliverer does
// nothing.
func (d *Deliverer) Start() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	d.done = make(chan struct{})
	d.sched = map[string]time.Time{}
	d.running = map[string]bool{}
	d.finished = map[string]time.Time{}
	go d.run(ctx, d.done)
}

// Notify says messages were enqueued: they are sent soon. It never blocks.
func (d *Deliverer) Notify() {
	select {
	case d.notify <- struct{}{}:
	default:
	}
}

// Destruct stops the deliverer, so it can live in a caddy.UsagePool
// (caddy.Destructor) and survive config reloads.
func (d *Deliverer) Destruct() error {
	d.Stop()
	return nil
}

// scanNow asks for a scan of the whole outbox (tests use it to make
// deliverers race, and to pass a retention without waiting a minute).
func (d *Deliverer) scanNow() {
	select {
	case d.rescanNow <- struct{}{}:
	default:
	}
}

// Stop stops the workers and returns when they are gone. A send in progress
// finishes (or reaches the SMTP timeout) and its outcome is recorded; a
// message not yet started stays queued for the next deliverer. Stopping a
// stopped deliverer does nothing.
func (d *Deliverer) Stop() {
	d.mu.Lock()
	cancel, done := d.cancel, d.done
	d.cancel, d.done = nil, nil
	d.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
}

// run is the scheduler: it hands due messages to the workers.
func (d *Deliverer) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	work := make(chan string)
	var wg sync.WaitGroup
	for range d.cfg.Workers {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case id := <-work:
					next, keep := d.process(ctx, id)
					d.finish(id, next, keep)
				}
			}
		})
	}
	defer wg.Wait()

	d.scan(ctx)
	lastScan := time.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		for _, id := range d.takeDue() {
			select {
			case work <- id:
			case <-ctx.Done():
				return
			}
		}
		wait := d.rescan - time.Since(lastScan)
		if next, ok := d.nextDue(); ok {
			wait = min(wait, next.Sub(d.now()))
		}
		timer.Reset(max(wait, 0))
		select {
		case <-ctx.Done():
			return
		case <-d.notify:
			ids, overflow := d.outbox.takeFresh()
			if overflow || len(ids) == 0 {
				// Enqueued through another Outbox value, or too many to
				// remember: only a scan finds them.
				d.scan(ctx)
				lastScan = time.Now()
			}
			d.schedule(ids...)
		case <-d.kick:
		case <-d.rescanNow:
			d.scan(ctx)
			lastScan = time.Now()
		case <-timer.C:
			if time.Since(lastScan) >= d.rescan {
				d.scan(ctx)
				lastScan = time.Now()
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// schedule makes ids due now.
func (d *Deliverer) schedule(ids ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, id := range ids {
		if !d.running[id] {
			d.sched[id] = time.Time{}
		}
	}
}

// takeDue removes the due messages from the schedule and marks them running.
func (d *Deliverer) takeDue() []string {
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	var due []string
	for id, at := range d.sched {
		if !at.After(now) {
			due = append(due, id)
			delete(d.sched, id)
			d.running[id] = true
		}
	}
	return due
}

func (d *Deliverer) nextDue() (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var next time.Time
	for _, at := range d.sched {
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next, len(d.sched) > 0
}

// finish records what a worker decided about id and wakes the scheduler.
func (d *Deliverer) finish(id string, next time.Time, keep bool) {
	d.mu.Lock()
	delete(d.running, id)
	if keep {
		d.sched[id] = next
	}
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// scan reads the whole outbox into the schedule, and forgets finished
// messages that have been deleted.
func (d *Deliverer) scan(ctx context.Context) {
	names, err := d.outbox.store.List(ctx)
	if err != nil {
		if ctx.Err() == nil {
			d.logger.Warn("email: reading the outbox failed", zap.Error(err))
		}
		return
	}
	now := d.now()
	retention := time.Duration(d.cfg.Retention)
	seen := make(map[string]bool, len(names))
	for _, id := range names {
		seen[id] = true
		d.mu.Lock()
		expiry, isFinished := d.finished[id]
		skip := d.running[id] || (isFinished && expiry.After(now))
		d.mu.Unlock()
		if skip {
			continue
		}
		var doc document
		if err := d.outbox.store.Get(ctx, id, &doc); err != nil {
			if ctx.Err() != nil {
				return
			}
			if !errors.Is(err, ErrNotFound) {
				d.logger.Warn("email: reading an outbox message failed", zap.String("message_id", id), zap.Error(err))
			}
			continue
		}
		due := doc.due(retention)
		d.mu.Lock()
		if doc.Status.State.Final() && due.After(now) {
			d.finished[id] = due
		} else if !d.running[id] {
			delete(d.finished, id)
			d.sched[id] = due
		}
		d.mu.Unlock()
	}
	d.mu.Lock()
	for id := range d.finished {
		if !seen[id] {
			delete(d.finished, id)
		}
	}
	d.mu.Unlock()
}

// process gives message id the attention it is due: an attempt, the
// deletion of a finished message past its retention, or nothing yet. It
// returns when the message is next due, or keep=false if this deliverer
// need not look at it again (a rescan finds it if that is wrong).
func (d *Deliverer) process(ctx context.Context, id string) (next time.Time, keep bool) {
	doc, ok, next, keep := d.claim(ctx, id)
	if !ok {
		return next, keep
	}
	attempt := doc.Status.Attempts
	d.logger.Info("email: sending",
		zap.String("message_id", id),
		zap.String("proof_record_id", doc.Message.ProofRecordID),
		zap.Int("attempt", attempt))
	if c := d.logger.Check(zap.DebugLevel, "email: recipient"); c != nil {
		c.Write(zap.String("message_id", id), zap.String("to", doc.Message.To))
	}
	aerr := d.attempt(doc.Message)
	d.record(&doc, aerr)
	return d.report(doc, aerr)
}

// claim loads id and, if an attempt is due, marks it sending under both the
// in-process guard and the storage lock, so only one deliverer (of any
// instance sharing the storage) attempts it.
func (d *Deliverer) claim(ctx context.Context, id string) (doc document, ok bool, next time.Time, keep bool) {
	release, free := d.outbox.guard.tryAcquire(id)
	if !free {
		return doc, false, d.now().Add(storageRetry), true
	}
	defer release()
	retention := time.Duration(d.cfg.Retention)

	// A first read without the lock: most visits find nothing due.
	switch err := d.outbox.store.Get(ctx, id, &doc); {
	case errors.Is(err, ErrNotFound):
		return doc, false, next, false
	case err != nil:
		next, keep = d.retryAfterStorageError(ctx, id, err)
		return doc, false, next, keep
	}
	now := d.now()
	if due := doc.due(retention); due.After(now) {
		return doc, false, due, !doc.Status.State.Final()
	}

	if d.afterPeek != nil {
		d.afterPeek(id)
	}
	locked, err := d.outbox.tryLock(ctx, id)
	if err != nil {
		next, keep = d.retryAfterStorageError(ctx, id, err)
		return doc, false, next, keep
	}
	if !locked {
		return doc, false, now.Add(storageRetry), true
	}
	defer d.outbox.unlock(id)
	if ctx.Err() != nil {
		return doc, false, next, false // stopping: leave it to the next deliverer
	}
	// Read again under the lock: another instance may have claimed it.
	switch err := d.outbox.store.Get(ctx, id, &doc); {
	case errors.Is(err, ErrNotFound):
		return doc, false, next, false
	case err != nil:
		next, keep = d.retryAfterStorageError(ctx, id, err)
		return doc, false, next, keep
	}
	now = d.now()
	if due := doc.due(retention); due.After(now) {
		return doc, false, due, !doc.Status.State.Final()
	}
	if doc.Status.State.Final() {
		if err := d.outbox.store.Delete(ctx, id); err != nil {
			next, keep = d.retryAfterStorageError(ctx, id, err)
			return doc, false, next, keep
		}
		d.logger.Debug("email: deleted a finished message after its retention", zap.String("message_id", id))
		return doc, false, next, false
	}
	if doc.Status.State == StateSending {
		// Its claimant died mid-send (or lost its storage): the server may
		// have accepted the message already. At-least-once: try again.
		d.logger.Warn("email: a claim expired; the message may be sent twice",
			zap.String("message_id", id), zap.String("proof_record_id", doc.Message.ProofRecordID))
		if doc.Status.Attempts >= d.cfg.MaxAttempts {
			doc.Status.LastError = "delivery outcome lost; no attempts left"
			d.settle(&doc, StateFailed, now)
			if err := d.put(&doc); err != nil {
				next, keep = d.retryAfterStorageError(ctx, id, err)
				return doc, false, next, keep
			}
			d.callback(doc)
			return doc, false, next, false
		}
	}
	doc.Status.State = StateSending
	doc.Status.Attempts++
	doc.Status.UpdatedAt = now.UTC()
	doc.LeaseUntil = now.Add(d.lease).UTC()
	if err := d.outbox.store.Put(ctx, id, &doc); err != nil {
		next, keep = d.retryAfterStorageError(ctx, id, err)
		return doc, false, next, keep
	}
	return doc, true, next, false
}

func (d *Deliverer) retryAfterStorageError(ctx context.Context, id string, err error) (time.Time, bool) {
	if ctx.Err() != nil {
		return time.Time{}, false // stopping: the next deliverer takes over
	}
	d.logger.Warn("email: outbox storage failed; will retry", zap.String("message_id", id), zap.Error(err))
	return d.now().Add(storageRetry), true
}

// attempt composes and sends m once; nil means the server accepted it.
func (d *Deliverer) attempt(m Message) *attemptError {
	msg, err := d.composer.compose(m, d.now())
	if err != nil {
		return &attemptError{permanent: true, text: "composing the message failed", err: err}
	}
	err = d.sender.send(msg)
	if err == nil || msg.IsDelivered() {
		// Accepted: a failure after that (RSET, QUIT) is not the message's.
		return nil
	}
	return classify(err)
}

// record updates doc with the outcome of an attempt.
func (d *Deliverer) record(doc *document, aerr *attemptError) {
	now := d.now()
	doc.LeaseUntil = time.Time{}
	switch {
	case aerr == nil:
		doc.Status.LastError = ""
		d.settle(doc, StateSent, now)
	case aerr.permanent || doc.Status.Attempts >= d.cfg.MaxAttempts:
		doc.Status.LastError = aerr.text
		d.settle(doc, StateFailed, now)
	default:
		doc.Status.LastError = aerr.text
		doc.Status.State = StateQueued
		doc.Status.NextAttempt = now.Add(d.backoff(doc.Status.Attempts)).UTC()
		doc.Status.UpdatedAt = now.UTC()
	}
}

func (d *Deliverer) settle(doc *document, state State, now time.Time) {
	doc.Status.State = state
	doc.Status.NextAttempt = time.Time{}
	doc.Status.UpdatedAt = now.UTC()
	doc.Status.FinishedAt = now.UTC()
	doc.LeaseUntil = time.Time{}
}

// report stores the outcome, logs it and hands it to onResult.
func (d *Deliverer) report(doc document, aerr *attemptError) (time.Time, bool) {
	m := doc.Message
	fields := []zap.Field{
		zap.String("message_id", m.ID),
		zap.String("proof_record_id", m.ProofRecordID),
		zap.Int("attempt", doc.Status.Attempts),
	}
	if aerr != nil {
		fields = append(fields, zap.String("error", aerr.text))
		if c := d.logger.Check(zap.DebugLevel, "email: attempt failed"); c != nil {
			c.Write(zap.String("message_id", m.ID), zap.Error(aerr.err))
		}
	}
	switch doc.Status.State {
	case StateSent:
		d.logger.Info("email: sent", fields...)
	case StateFailed:
		d.logger.Error("email: delivery failed", fields...)
	default:
		d.logger.Warn("email: attempt failed; will retry", append(fields, zap.Time("next_attempt", doc.Status.NextAttempt))...)
	}
	if err := d.put(&doc); err != nil {
		// The claim expires and another attempt is made: the message may go
		// out twice, but it is not lost.
		d.logger.Error("email: recording the outcome failed", zap.String("message_id", m.ID), zap.Error(err))
		return d.now().Add(d.lease), true
	}
	d.callback(doc)
	if doc.Status.State.Final() {
		d.mu.Lock()
		d.finished[m.ID] = doc.Status.FinishedAt.Add(time.Duration(d.cfg.Retention))
		d.mu.Unlock()
		return time.Time{}, false
	}
	return doc.Status.NextAttempt, true
}

// put writes doc with a context of its own: an outcome is recorded even
// while the deliverer stops.
func (d *Deliverer) put(doc *document) error {
	ctx, cancel := context.WithTimeout(context.Background(), storageTimeout)
	defer cancel()
	return d.outbox.store.Put(ctx, doc.Message.ID, doc)
}

func (d *Deliverer) callback(doc document) {
	if d.onResult == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			d.logger.Error("email: result callback panicked", zap.String("message_id", doc.Message.ID), zap.String("panic", fmt.Sprint(r)))
		}
	}()
	d.onResult(doc.Message, doc.Status)
}

// defaultBackoff doubles retry_backoff per failed attempt up to maxBackoff
// (or retry_backoff, if larger), then takes a random point in its upper
// half, so messages failed together do not all retry together.
func (d *Deliverer) defaultBackoff(attempt int) time.Duration {
	base := time.Duration(d.cfg.RetryBackoff)
	limit := max(maxBackoff, base)
	b := base
	for i := 1; i < attempt && b < limit; i++ {
		b *= 2
	}
	b = min(b, limit)
	return b/2 + rand.N(b/2+1)
}
