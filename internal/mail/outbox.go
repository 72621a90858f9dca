package mail

import (
	"context"
	"path"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/outbox"
	"github.com/proofgate/proofgate/internal/store"
)

// Kind is the outbox kind of invitation e-mails.
const Kind = "email"

// ErrNotFound means the outbox holds no message with that id.
var ErrNotFound = outbox.ErrNotFound

// ErrTooLate is Cancel's answer for a message that is being sent or was sent.
var ErrTooLate = outbox.ErrTooLate

// Outbox is the durable queue of invitation e-mails: the shared outbox
// (internal/outbox) under proofgate/outbox/ (or proofgate/outbox/<queue>/),
// with messages of kind "email". It is safe for concurrent use.
type Outbox struct {
	box   *outbox.Outbox
	store *store.Store
	now   func() time.Time
	key   string // the storage and namespace (outbox.StorageKey)
}

// NewOutbox returns the outbox of queue ("" for the shared default) in
// storage.
func NewOutbox(storage certmagic.Storage, queue string) *Outbox {
	ns := "outbox"
	if queue != "" {
		ns = path.Join(ns, queue)
	}
	o := &Outbox{now: time.Now, key: outbox.StorageKey(storage, ns)}
	o.box = outbox.New(storage, ns, func() time.Time { return o.now() })
	o.store = o.box.Store()
	return o
}

// Enqueue stores m for delivery: one durable write. Once it returns nil the
// message will be attempted, even if the process restarts before that. It
// is held for its request: the deliverer sends it once that request has
// succeeded and calls Deliverer.Notify(m.ID), which releases this message
// and no other; a request that fails calls Cancel instead. A message whose
// release was lost (the process died in between) is sent when its hold
// ends (outbox.DefaultHold). Errors wrap backend.ErrUnavailable when
// storage failed.
func (o *Outbox) Enqueue(ctx context.Context, m Message) error {
	if err := m.validate(); err != nil {
		return err
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = o.now().UTC()
	}
	return o.box.Stage(ctx, m.ID, Kind, m)
}

// Cancel withdraws a message whose request failed after Enqueue. A queued
// (or failed) message is deleted; one being sent or already sent is not,
// and Cancel returns ErrTooLate. An unknown id is not an error.
func (o *Outbox) Cancel(ctx context.Context, id string) error {
	return o.box.Cancel(ctx, id)
}

// Status returns the delivery status of message id, or ErrNotFound (also
// once a finished message has outlived its retention).
func (o *Outbox) Status(ctx context.Context, id string) (Status, error) {
	return o.box.Status(ctx, id)
}
