package outbox

import (
	"encoding/json"
	"errors"
	"time"
)

// State is where a message is in its delivery.
type State string

// States of a message.
const (
	// StateQueued waits for its next attempt (at Status.NextAttempt).
	StateQueued State = "queued"
	// StateSending is claimed by a worker that is delivering it.
	StateSending State = "sending"
	// StateSent was delivered.
	StateSent State = "sent"
	// StateFailed was refused permanently or ran out of attempts.
	StateFailed State = "failed"
)

// Final reports whether no more attempts will be made.
func (s State) Final() bool { return s == StateSent || s == StateFailed }

// Status is the delivery state of a message. Its JSON is meant to be
// copied onto a proof record's metadata.
type Status struct {
	State State `json:"state"`
	// Attempts counts the deliveries started.
	Attempts int `json:"attempts"`
	// LastError describes the last failure, without personal data or
	// internal addresses (the delivery function's Public text).
	LastError string `json:"lastError,omitempty"`
	// NextAttempt is when a queued message is tried next.
	NextAttempt time.Time `json:"nextAttempt,omitzero"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
	// FinishedAt is when the message was sent or failed for good.
	FinishedAt time.Time `json:"finishedAt,omitzero"`
}

// Document is what the outbox stores per message.
type Document struct {
	// Kind selects the delivery function; empty means the deliverer's
	// default kind (documents written before kinds existed).
	Kind string `json:"kind,omitempty"`
	// Message is the payload, as the enqueuer marshalled it.
	Message json.RawMessage `json:"message"`
	// Held: staged (Outbox.Stage) and not yet attempted. It waits for its
	// request's commit (Deliverer.Notify) or, failing that, for
	// Status.NextAttempt, the end of its hold.
	Held   bool   `json:"held,omitempty"`
	Status Status `json:"status"`
	// LeaseUntil bounds a "sending" claim: past it, the worker that claimed
	// the message is presumed dead and another may try again.
	LeaseUntil time.Time `json:"leaseUntil,omitzero"`
}

// due returns when the document next needs a worker's attention: its next
// attempt, the end of a sending lease, or the end of its retention.
func (d *Document) due(retention time.Duration) time.Time {
	switch d.Status.State {
	case StateQueued:
		return d.Status.NextAttempt
	case StateSending:
		return d.LeaseUntil
	default:
		return d.Status.FinishedAt.Add(retention)
	}
}

// Entry is a message handed to a delivery function or a result callback.
type Entry struct {
	ID      string
	Kind    string
	Message json.RawMessage
	// Attempt is the number of this attempt (1 for the first).
	Attempt int
}

// Decode unmarshals the payload into v.
func (e Entry) Decode(v any) error { return json.Unmarshal(e.Message, v) }

// Failure is an error a delivery function returns to say how the attempt
// failed. Other errors count as temporary, with their text as LastError.
type Failure struct {
	// Permanent: retrying cannot help (the receiver refused the message).
	Permanent bool
	// Public describes the failure for the message's status (and what
	// callers copy onto records): no personal data, no internal addresses.
	Public string
	// Err is the full error, for debug logs only.
	Err error
}

func (f *Failure) Error() string { return f.Public }

func (f *Failure) Unwrap() error { return f.Err }

// Permanent marks err as a failure retrying cannot fix.
func Permanent(err error) error {
	var f *Failure
	if errors.As(err, &f) {
		c := *f
		c.Permanent = true
		return &c
	}
	return &Failure{Permanent: true, Public: err.Error(), Err: err}
}

// ValidID reports whether id can name a message: 1-200 letters, digits,
// '-', '_' or '.', not "." or "..".
func ValidID(id string) bool {
	if id == "" || len(id) > 200 || id == "." || id == ".." {
		return false
	}
	for _, c := range id {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}
