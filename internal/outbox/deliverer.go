package outbox

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/proofgate/proofgate/internal/metrics"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// Interface guard: a Deliverer can be a caddy.UsagePool value.
var _ caddy.Destructor = (*Deliverer)(nil)

// Defaults of Options.
const (
	DefaultWorkers      = 2
	DefaultMaxAttempts  = 10
	DefaultRetryBackoff = 30 * time.Second
	DefaultMaxBackoff   = time.Hour
	DefaultRetention    = 7 * 24 * time.Hour
	DefaultLease        = 3 * time.Minute
	// rescanInterval is how often the whole outbox is read again: to find
	// messages other instances enqueued, claims that expired, and finished
	// messages past their retention.
	rescanInterval = time.Minute
	// storageRetry is the wait after a storage error or a lock held elsewhere.
	storageRetry = 5 * time.Second
	// storageTimeout bounds the writes of an attempt's outcome, which run
	// even while the deliverer stops.
	storageTimeout = 15 * time.Second
)

// Options configure a Deliverer. Zero values take the defaults.
type Options struct {
	// Workers is how many messages are delivered concurrently.
	Workers int
	// MaxAttempts is how many times a message is tried before it fails.
	MaxAttempts int
	// RetryBackoff is the wait before the second attempt; it doubles per
	// failure up to MaxBackoff (or RetryBackoff, if larger), with jitter.
	RetryBackoff time.Duration
	MaxBackoff   time.Duration
	// Retention is how long sent and failed messages stay (for their
	// status) before they are deleted.
	Retention time.Duration
	// Lease bounds one attempt's claim; it must exceed the longest
	// delivery (its timeout) so a live worker records its outcome first.
	Lease time.Duration
	// DefaultKind is the kind of documents stored without one.
	DefaultKind string
	// Logger receives the delivery log; its name should say what is
	// delivered ("mail", "webhook").
	Logger *zap.Logger
	// OnResult, if set, hears of outcomes (see ResultFunc).
	OnResult ResultFunc
	// Now is the clock; Backoff replaces the default backoff; AfterPeek
	// runs between the unlocked read of a due message and its locked
	// claim. Seams for tests.
	Now       func() time.Time
	Backoff   func(attempt int) time.Duration
	AfterPeek func(id string)
	// Rescan replaces the interval of whole-outbox scans.
	Rescan time.Duration
	// Mine, if set, says whether this deliverer should attempt a message
	// that is due. A message it is not for is left alone (no claim, no
	// attempt counted) until a later scan asks again: the deliverers of
	// several configurations that share an outbox each take their own.
	// It runs on a worker for every due message it sees: keep it cheap.
	Mine func(Entry) bool
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = DefaultRetryBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rescan <= 0 {
		o.Rescan = rescanInterval
	}
	if o.Backoff == nil {
		base, limit := o.RetryBackoff, o.MaxBackoff
		o.Backoff = func(attempt int) time.Duration { return Backoff(base, limit, attempt) }
	}
	return o
}

// Deliverer delivers an outbox's messages: Workers goroutines, fed by a
// scheduler that knows when each message is next due. It may be kept
// across config reloads (see Acquire), stopped and started again.
type Deliverer struct {
	opts   Options
	outbox *Outbox
	logger *zap.Logger

	// kinds maps each kind to the newest of its registrations (stacks),
	// for lock-free reads by the workers.
	kinds  atomic.Pointer[map[string]kind]
	kmu    sync.Mutex // guards stacks, serializes publishing kinds
	stacks map[string][]*kind

	notify    chan struct{}
	kick      chan struct{}
	rescanNow chan struct{}

	mu       sync.Mutex
	cancel   context.CancelFunc
	done     chan struct{}
	sched    map[string]time.Time // id → when it is next due
	running  map[string]bool      // ids handed to a worker
	again    map[string]bool      // running ids released meanwhile: due again at once
	finished map[string]time.Time // final messages → end of retention
	// waiting remembers when each unfinished message was queued, for the
	// backlog metrics (Backlog).
	waiting map[string]time.Time
	// unreport stops the backlog metrics' reading of this deliverer.
	unreport func()
}

// NewDeliverer prepares a deliverer of outbox's messages. Register a
// delivery function per kind with Handle before Start.
func NewDeliverer(outbox *Outbox, opts Options) *Deliverer {
	opts = opts.withDefaults()
	d := &Deliverer{
		opts:      opts,
		outbox:    outbox,
		logger:    opts.Logger,
		notify:    make(chan struct{}, 1),
		kick:      make(chan struct{}, 1),
		rescanNow: make(chan struct{}, 1),
		sched:     map[string]time.Time{},
		running:   map[string]bool{},
		again:     map[string]bool{},
		finished:  map[string]time.Time{},
		waiting:   map[string]time.Time{},
		stacks:    map[string][]*kind{},
	}
	empty := map[string]kind{}
	d.kinds.Store(&empty)
	return d
}

// Outbox returns the outbox this deliverer delivers from.
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
	d.again = map[string]bool{}
	d.finished = map[string]time.Time{}
	d.waiting = map[string]time.Time{}
	d.unreport = metrics.ReportOutbox(metricKind(d.opts.DefaultKind), d.Backlog)
	go d.run(ctx, d.done)
}

// Notify(ids...) says the requests that staged ids (Outbox.Stage) have
// committed: those messages, and no others, are released and delivered
// soon. Notify() without ids says messages were enqueued (Outbox.Enqueue,
// due at once): they are delivered soon; it releases no staged message.
// It never blocks.
func (d *Deliverer) Notify(ids ...string) {
	if len(ids) == 0 {
		select {
		case d.notify <- struct{}{}:
		default:
		}
		return
	}
	d.outbox.released.add(ids)
	d.schedule(ids...)
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// ScanNow asks for a scan of the whole outbox (tests use it to make
// deliverers race, and to pass a retention without waiting a minute).
func (d *Deliverer) ScanNow() {
	select {
	case d.rescanNow <- struct{}{}:
	default:
	}
}

// Destruct stops the deliverer (caddy.Destructor).
func (d *Deliverer) Destruct() error {
	d.Stop()
	return nil
}

// Stop stops the workers and returns when they are gone. A delivery in
// progress finishes and its outcome is recorded; a message not yet started
// stays queued for the next deliverer. Stopping a stopped deliverer does
// nothing.
func (d *Deliverer) Stop() {
	d.mu.Lock()
	cancel, done, unreport := d.cancel, d.done, d.unreport
	d.cancel, d.done, d.unreport = nil, nil, nil
	d.mu.Unlock()
	if cancel == nil {
		return
	}
	if unreport != nil {
		unreport()
	}
	cancel()
	<-done
}

// run is the scheduler: it hands due messages to the workers.
func (d *Deliverer) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	work := make(chan string)
	var wg sync.WaitGroup
	for range d.opts.Workers {
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
		wait := d.opts.Rescan - time.Since(lastScan)
		if next, ok := d.nextDue(); ok {
			wait = min(wait, next.Sub(d.opts.Now()))
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
			if time.Since(lastScan) >= d.opts.Rescan {
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

// schedule makes ids due now; one a worker holds is looked at again once
// the worker is done with it.
func (d *Deliverer) schedule(ids ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.opts.Now()
	for _, id := range ids {
		if d.running[id] {
			d.again[id] = true
		} else {
			d.sched[id] = time.Time{}
		}
		if _, ok := d.waiting[id]; !ok {
			d.waiting[id] = now
		}
	}
}

// takeDue removes the due messages from the schedule and marks them running.
func (d *Deliverer) takeDue() []string {
	now := d.opts.Now()
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
	switch {
	case d.again[id]:
		// Released (or enqueued again) while the worker had it: the
		// worker may have read it before.
		delete(d.again, id)
		d.sched[id] = time.Time{}
	case keep:
		d.sched[id] = next
	default:
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
			d.logger.Warn("outbox: reading the outbox failed", zap.Error(err))
		}
		return
	}
	now := d.opts.Now()
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
		var doc Document
		if err := d.outbox.store.Get(ctx, id, &doc); err != nil {
			if ctx.Err() != nil {
				return
			}
			if !errors.Is(err, ErrNotFound) {
				d.logger.Warn("outbox: reading a message failed", zap.String("message_id", id), zap.Error(err))
			}
			continue
		}
		due := d.due(id, &doc)
		d.mu.Lock()
		if doc.Status.State.Final() && due.After(now) {
			d.finished[id] = due
			delete(d.waiting, id)
		} else if !d.running[id] {
			delete(d.finished, id)
			d.sched[id] = due
			if !doc.Status.State.Final() {
				if _, ok := d.waiting[id]; !ok {
					d.waiting[id] = doc.Status.CreatedAt
				}
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

// due returns when message id (read into doc) next needs a worker: a
// staged message whose request committed (Notify) is due at once, any
// other when its document says.
func (d *Deliverer) due(id string, doc *Document) time.Time {
	if doc.Held && doc.Status.State == StateQueued {
		if d.outbox.released.has(id) {
			return time.Time{}
		}
	} else {
		d.outbox.released.drop(id) // claimed meanwhile, or not staged
	}
	return doc.due(d.opts.Retention)
}

// Backlog reports the messages that wait for delivery (queued, retrying
// or being sent) and when the oldest of them was queued (zero when none
// waits), for the outbox metrics.
func (d *Deliverer) Backlog() (int, time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var oldest time.Time
	for _, at := range d.waiting {
		if oldest.IsZero() || at.Before(oldest) {
			oldest = at
		}
	}
	return len(d.waiting), oldest
}
