package outbox

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"go.uber.org/zap"
)

// maxErrorText caps the LastError kept in a status.
const maxErrorText = 300

// process gives message id the attention it is due: an attempt, the
// deletion of a finished message past its retention, or nothing yet. It
// returns when the message is next due, or keep=false if this deliverer
// need not look at it again (a rescan finds it if that is wrong).
func (d *Deliverer) process(ctx context.Context, id string) (next time.Time, keep bool) {
	doc, ok, next, keep := d.claim(ctx, id, false)
	if !ok {
		return next, keep
	}
	return d.attemptAndReport(ctx, id, &doc)
}

// DeliverNow makes the next attempt of message id at once, on the
// caller's goroutine, if no other worker holds it: the caller learns the
// outcome (an API answer that shows whether a message went out). A queued
// message is attempted even while staged (DeliverNow is then its
// release). A message that is not queued, or is claimed elsewhere, is
// left alone and its current status returned. The message stays in the
// outbox either way, so a failed attempt is retried by the workers.
func (d *Deliverer) DeliverNow(ctx context.Context, id string) (Status, error) {
	doc, ok, _, _ := d.claim(ctx, id, true)
	if !ok {
		return d.outbox.Status(ctx, id)
	}
	next, keep := d.attemptAndReport(ctx, id, &doc)
	if keep {
		d.mu.Lock()
		if !d.running[id] {
			d.sched[id] = next
		}
		d.mu.Unlock()
		select {
		case d.kick <- struct{}{}:
		default:
		}
	}
	return doc.Status, nil
}

func (d *Deliverer) attemptAndReport(ctx context.Context, id string, doc *Document) (time.Time, bool) {
	entry := Entry{ID: id, Kind: doc.Kind, Message: doc.Message, Attempt: doc.Status.Attempts}
	if entry.Kind == "" {
		entry.Kind = d.opts.DefaultKind
	}
	d.logger.Debug("outbox: delivering", zap.String("message_id", id), zap.String("kind", entry.Kind), zap.Int("attempt", entry.Attempt))
	err := d.attempt(ctx, entry)
	d.record(doc, err)
	return d.report(id, doc, entry, err)
}

// claim loads id and, if an attempt is due (or, with now, if it is
// queued at all), marks it sending under both the in-process guard and the
// storage lock, so only one worker (of any instance sharing the storage)
// attempts it.
func (d *Deliverer) claim(ctx context.Context, id string, now bool) (doc Document, ok bool, next time.Time, keep bool) {
	release, free := d.outbox.guard.tryAcquire(id)
	if !free {
		return doc, false, d.opts.Now().Add(storageRetry), true
	}
	defer release()
	isDue := func(t time.Time) (time.Time, bool) {
		due := d.due(id, &doc)
		if now && doc.Status.State == StateQueued {
			return due, true
		}
		return due, !due.After(t)
	}

	// A first read without the lock: most visits find nothing due.
	switch err := d.outbox.store.Get(ctx, id, &doc); {
	case errors.Is(err, ErrNotFound):
		d.outbox.released.drop(id)
		return doc, false, next, false
	case err != nil:
		next, keep = d.retryAfterStorageError(ctx, id, err)
		return doc, false, next, keep
	}
	if due, ok := isDue(d.opts.Now()); !ok {
		return doc, false, due, !doc.Status.State.Final()
	}
	if d.handler(doc.Kind) == nil && !doc.Status.State.Final() {
		// Nobody here can deliver it (yet): look again later.
		return doc, false, d.opts.Now().Add(storageRetry), true
	}
	if d.opts.Mine != nil && !doc.Status.State.Final() &&
		!d.opts.Mine(Entry{ID: id, Kind: doc.Kind, Message: doc.Message, Attempt: doc.Status.Attempts + 1}) {
		// Another configuration's: the next scan asks again.
		return doc, false, next, false
	}

	if d.opts.AfterPeek != nil {
		d.opts.AfterPeek(id)
	}
	locked, err := d.outbox.tryLock(ctx, id)
	if err != nil {
		next, keep = d.retryAfterStorageError(ctx, id, err)
		return doc, false, next, keep
	}
	if !locked {
		return doc, false, d.opts.Now().Add(storageRetry), true
	}
	defer d.outbox.unlock(id)
	if ctx.Err() != nil {
		return doc, false, next, false // stopping: leave it to the next deliverer
	}
	// Read again under the lock: another instance may have claimed it.
	doc = Document{}
	switch err := d.outbox.store.Get(ctx, id, &doc); {
	case errors.Is(err, ErrNotFound):
		return doc, false, next, false
	case err != nil:
		next, keep = d.retryAfterStorageError(ctx, id, err)
		return doc, false, next, keep
	}
	t := d.opts.Now()
	if due, ok := isDue(t); !ok {
		return doc, false, due, !doc.Status.State.Final()
	}
	if doc.Status.State.Final() {
		if err := d.outbox.store.Delete(ctx, id); err != nil {
			next, keep = d.retryAfterStorageError(ctx, id, err)
			return doc, false, next, keep
		}
		d.logger.Debug("outbox: deleted a finished message after its retention", zap.String("message_id", id))
		return doc, false, next, false
	}
	if doc.Status.State == StateSending {
		// Its claimant died mid-delivery (or lost its storage): the
		// receiver may have it already. At-least-once: try again.
		d.logger.Warn("outbox: a claim expired; the message may be delivered twice",
			zap.String("message_id", id), zap.String("kind", doc.Kind))
		if doc.Status.Attempts >= d.opts.MaxAttempts {
			doc.Status.LastError = "delivery outcome lost; no attempts left"
			settle(&doc, StateFailed, t)
			if err := d.put(id, &doc); err != nil {
				next, keep = d.retryAfterStorageError(ctx, id, err)
				return doc, false, next, keep
			}
			d.callback(Entry{ID: id, Kind: doc.Kind, Message: doc.Message, Attempt: doc.Status.Attempts}, doc.Status)
			return doc, false, next, false
		}
	}
	doc.Status.State = StateSending
	doc.Status.Attempts++
	doc.Status.UpdatedAt = t.UTC()
	doc.Held = false
	doc.LeaseUntil = t.Add(d.opts.Lease).UTC()
	if err := d.outbox.store.Put(ctx, id, &doc); err != nil {
		next, keep = d.retryAfterStorageError(ctx, id, err)
		return doc, false, next, keep
	}
	d.outbox.released.drop(id)
	return doc, true, next, false
}

func (d *Deliverer) retryAfterStorageError(ctx context.Context, id string, err error) (time.Time, bool) {
	if ctx.Err() != nil {
		return time.Time{}, false // stopping: the next deliverer takes over
	}
	d.logger.Warn("outbox: storage failed; will retry", zap.String("message_id", id), zap.Error(err))
	return d.opts.Now().Add(storageRetry), true
}

// attempt runs the kind's delivery function once, bounded by the lease
// and shielded from panics. The caller's cancellation (Stop) does not cut
// an attempt short: its outcome must be recorded.
func (d *Deliverer) attempt(ctx context.Context, e Entry) (err error) {
	fn := d.handler(e.Kind)
	if fn == nil {
		return fmt.Errorf("no delivery function for kind %q", e.Kind)
	}
	defer func() {
		if r := recover(); r != nil {
			d.logger.Error("outbox: delivery function panicked", zap.String("message_id", e.ID), zap.String("panic", fmt.Sprint(r)))
			err = &Failure{Public: "internal error", Err: fmt.Errorf("panic: %v", r)}
		}
	}()
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.opts.Lease-d.opts.Lease/10)
	defer cancel()
	return fn(actx, e)
}

// record updates doc with the outcome of an attempt.
func (d *Deliverer) record(doc *Document, err error) {
	now := d.opts.Now()
	doc.LeaseUntil = time.Time{}
	var f *Failure
	permanent := errors.As(err, &f) && f.Permanent
	switch {
	case err == nil:
		doc.Status.LastError = ""
		settle(doc, StateSent, now)
	case permanent || doc.Status.Attempts >= d.opts.MaxAttempts:
		doc.Status.LastError = oneLine(err.Error(), maxErrorText)
		settle(doc, StateFailed, now)
	default:
		doc.Status.LastError = oneLine(err.Error(), maxErrorText)
		doc.Status.State = StateQueued
		doc.Status.NextAttempt = now.Add(d.opts.Backoff(doc.Status.Attempts)).UTC()
		doc.Status.UpdatedAt = now.UTC()
	}
}

func settle(doc *Document, state State, now time.Time) {
	doc.Status.State = state
	doc.Status.NextAttempt = time.Time{}
	doc.Status.UpdatedAt = now.UTC()
	doc.Status.FinishedAt = now.UTC()
	doc.LeaseUntil = time.Time{}
}

// report stores the outcome, logs it and hands it to OnResult.
func (d *Deliverer) report(id string, doc *Document, e Entry, err error) (time.Time, bool) {
	fields := []zap.Field{
		zap.String("message_id", id),
		zap.String("kind", e.Kind),
		zap.Int("attempt", doc.Status.Attempts),
	}
	if err != nil {
		fields = append(fields, zap.String("error", doc.Status.LastError))
		if c := d.logger.Check(zap.DebugLevel, "outbox: attempt failed"); c != nil {
			detail := err
			var f *Failure
			if errors.As(err, &f) && f.Err != nil {
				detail = f.Err
			}
			c.Write(zap.String("message_id", id), zap.Error(detail))
		}
	}
	switch doc.Status.State {
	case StateSent:
		d.logger.Info("outbox: delivered", fields...)
	case StateFailed:
		d.logger.Error("outbox: delivery failed for good", fields...)
	default:
		d.logger.Warn("outbox: attempt failed; will retry", append(fields, zap.Time("next_attempt", doc.Status.NextAttempt))...)
	}
	replaced, err := d.putOutcome(id, doc)
	if err != nil {
		// The claim expires and another attempt is made: the message may
		// go out twice, but it is not lost.
		d.logger.Error("outbox: recording the outcome failed", zap.String("message_id", id), zap.Error(err))
		return d.opts.Now().Add(d.opts.Lease), true
	}
	if replaced {
		d.logger.Debug("outbox: the message was replaced or withdrawn during the attempt; its outcome is not recorded", zap.String("message_id", id))
		return d.opts.Now(), true
	}
	d.callback(e, doc.Status)
	if doc.Status.State.Final() {
		d.mu.Lock()
		d.finished[id] = doc.Status.FinishedAt.Add(d.opts.Retention)
		d.mu.Unlock()
		return time.Time{}, false
	}
	return doc.Status.NextAttempt, true
}

// putOutcome writes an attempt's outcome under the message's storage lock,
// unless the message was staged again (Outbox.Restage) or withdrawn during the
// attempt, or its claim passed to another worker: the newer state wins
// (replaced is then true). It has a context of its own: an outcome is
// recorded even while the deliverer stops.
func (d *Deliverer) putOutcome(id string, doc *Document) (replaced bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), storageTimeout)
	defer cancel()
	if err := d.outbox.storage.Lock(ctx, d.outbox.lockName(id)); err != nil {
		return false, err
	}
	defer d.outbox.unlock(id)
	var cur Document
	switch err := d.outbox.store.Get(ctx, id, &cur); {
	case errors.Is(err, ErrNotFound):
		return true, nil
	case err != nil:
		return false, err
	}
	if cur.Status.State != StateSending || cur.Status.Attempts != doc.Status.Attempts {
		return true, nil
	}
	return false, d.outbox.store.Put(ctx, id, doc)
}

// put writes doc with a context of its own: an outcome is recorded even
// while the deliverer stops.
func (d *Deliverer) put(id string, doc *Document) error {
	ctx, cancel := context.WithTimeout(context.Background(), storageTimeout)
	defer cancel()
	return d.outbox.store.Put(ctx, id, doc)
}

func (d *Deliverer) callback(e Entry, s Status) {
	if e.Kind == "" {
		e.Kind = d.opts.DefaultKind
	}
	count(e.Kind, s)
	for _, fn := range []ResultFunc{d.opts.OnResult, d.kind(e.Kind).result} {
		if fn != nil {
			d.safeCallback(fn, e, s)
		}
	}
}

func (d *Deliverer) safeCallback(fn ResultFunc, e Entry, s Status) {
	defer func() {
		if r := recover(); r != nil {
			d.logger.Error("outbox: result callback panicked", zap.String("message_id", e.ID), zap.String("panic", fmt.Sprint(r)))
		}
	}()
	fn(e, s)
}

// Backoff is the wait after failed attempt number attempt: base doubled
// per earlier failure up to limit (or base, if larger), then a random
// point in its upper half, so messages failed together do not all retry
// together.
func Backoff(base, limit time.Duration, attempt int) time.Duration {
	limit = max(limit, base)
	b := base
	for i := 1; i < attempt && b < limit; i++ {
		b *= 2
	}
	b = min(b, limit)
	return b/2 + rand.N(b/2+1)
}

func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return s
}
