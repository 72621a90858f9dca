package mail

import (
	"context"
	"errors"
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
	// waiting remembers when each unfinished message was queued, for the
	// outbox metrics (Backlog).
	waiting map[string]time.Time
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
	d.waiting = map[string]time.Time{}
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
	now := d.now()
	for _, id := range ids {
		if !d.running[id] {
			d.sched[id] = time.Time{}
		}
		if _, ok := d.waiting[id]; !ok {
			d.waiting[id] = now
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
	} else {
		delete(d.waiting, id)
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
			delete(d.waiting, id)
		} else if !d.running[id] {
			delete(d.finished, id)
			d.sched[id] = due
			if !doc.Status.State.Final() && !doc.Message.CreatedAt.IsZero() {
				d.waiting[id] = doc.Message.CreatedAt
			}
		}
		d.mu.Unlock()
	}
	d.mu.Lock()
	for id := range d.finished {
		if !seen[id] {
			delete(d.finished, id)
		}
	}
	for id := range d.waiting {
		if !seen[id] && !d.running[id] {
			delete(d.waiting, id)
		}
	}
	d.mu.Unlock()
}
