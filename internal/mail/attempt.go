package mail

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"go.uber.org/zap"
)

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
		delete(d.waiting, m.ID)
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
