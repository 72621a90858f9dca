package handlers

import (
	"context"
	"net/http"
	"sync"
)

// RecordChange is one proof record's state change.
type RecordChange struct {
	ProofRecordID, PreviousState, State string
}

// RequestChanges collects the state changes one request causes, so that
// its line of the request log carries them: one line per handled request,
// sampled and silenced with the others, instead of a line of its own per
// change. The change sink adds to it (ChangesOf finds it in the context
// the request's work runs with); the request's line closes it. A change
// committed once it is closed (by work the request left running) is
// refused, and the sink writes that one on a line of its own.
type RequestChanges struct {
	mu      sync.Mutex
	closed  bool
	changes []RecordChange
	first   [1]RecordChange // backs changes for the usual one
}

// Add records a change; false once the request's line is written.
func (c *RequestChanges) Add(rc RecordChange) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	if c.changes == nil {
		c.changes = c.first[:0]
	}
	c.changes = append(c.changes, rc)
	return true
}

// Close refuses further changes and returns those recorded (nil-safe).
func (c *RequestChanges) Close() []RecordChange {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return c.changes
}

type requestChangesKey struct{}

// WithChanges returns ctx for work whose changes c collects.
func WithChanges(ctx context.Context, c *RequestChanges) context.Context {
	return context.WithValue(ctx, requestChangesKey{}, c)
}

// ChangesOf returns the changes of the request ctx belongs to, or nil
// when ctx is not a request's whose line will carry them.
func ChangesOf(ctx context.Context) *RequestChanges {
	c, _ := ctx.Value(requestChangesKey{}).(*RequestChanges)
	return c
}

// changesContext returns the context for the work of a request that
// changes records: the changes its line will carry are collected through
// it. Without a note (unit tests) it is the request's own.
func changesContext(w http.ResponseWriter, r *http.Request) context.Context {
	n := noteOf(w)
	if n == nil {
		return r.Context()
	}
	if n.Changes == nil {
		n.Changes = new(RequestChanges)
	}
	return WithChanges(r.Context(), n.Changes)
}
