// Package checkslots is the process-wide cap on how many presentations are
// checked at once. A presentation is written by whoever holds an
// invitation, and checking one against its definition may cost up to 2 s
// of CPU even within its own bounds (internal/pexcheck: its paths and
// filters share one 2 s deadline), so the number of checks running
// together is bounded too (SECURITY.md, "Bounded work for prover-written
// input").
//
// There is one cap, not one per user of it: the local verifier's checks
// of presentations arriving over DIDComm (internal/proofs) and the credo
// backend's check of a presentation before it accepts it
// (internal/upstream/credo) spend the same CPUs, and during a config
// reload the old and the new module instances serve side by side. A cap
// per module instance or per backend would multiply with each of them.
package checkslots

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Max is how many presentations are checked at the same time in this
// process: twice the usable CPUs, at least 4 (the local verifier's
// verification, inside its slot, may wait on the network). It is read
// once, when the package initializes; changing it later has no effect.
var Max = max(4, 2*runtime.GOMAXPROCS(0))

// DefaultWait is how long Admit waits for a slot: a caller refused after
// it is told to come back shortly (HTTP 503 with Retry-After) rather than
// queueing, holding its message, behind checks that may each take
// seconds.
const DefaultWait = time.Second

// Wait is how long Admit waits for a slot before ErrBusy. It is
// DefaultWait; a variable so that tests can shorten it (set it before
// anything calls Admit, and put it back when done).
var Wait = DefaultWait

// ErrBusy means as many presentations are being checked as the process
// allows; the sender should retry after a moment (HTTP 503 with
// Retry-After).
var ErrBusy = errors.New("too many presentations being checked; retry later")

// slots holds one token per check running.
var slots = make(chan struct{}, Max)

// Admit takes a checking slot, waiting at most Wait for one. The caller
// runs its check and then calls release (once; later calls do nothing).
// When no slot frees up in time the error is ErrBusy; when ctx ends first
// it is ErrBusy wrapping ctx's error, so that a caller may tell a client
// that went away from a busy process.
func Admit(ctx context.Context) (release func(), err error) {
	select {
	case slots <- struct{}{}:
		return releaser(), nil
	default:
	}
	t := time.NewTimer(Wait)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return releaser(), nil
	case <-t.C:
		return nil, ErrBusy
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrBusy, ctx.Err())
	}
}

// releaser gives a slot back once: a release called twice must not free
// another check's slot, which would raise the cap for the whole process.
func releaser() func() {
	var once sync.Once
	return func() { once.Do(func() { <-slots }) }
}
