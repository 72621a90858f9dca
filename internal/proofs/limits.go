package proofs

import (
	"context"
	"errors"
	"runtime"
	"time"

	"github.com/proofgate/proofgate/internal/jsonlimit"
	"github.com/proofgate/proofgate/internal/pexcheck"
)

// Bounds on the work a prover's message may cost (SECURITY.md, "Bounded
// work for prover-written input"). A message is measured before it is
// decoded, its descriptor paths are plain, definition paths run on one
// budget per presentation, and only a few presentations are checked at a
// time, each under its record's lock.
const (
	// MaxMessageDepth and MaxMessageValues bound the plaintext message and
	// the presentation attachment (jsonlimit): deeper or larger is refused
	// before anything is decoded.
	MaxMessageDepth  = jsonlimit.MaxDepth
	MaxMessageValues = jsonlimit.MaxValues
	// MaxDescriptorMap, MaxPathVisits, MaxPathResults, PathTimeout and
	// MaxFilterWork bound the Presentation Exchange check of one
	// presentation; they are internal/pexcheck's, named here too.
	MaxDescriptorMap = pexcheck.MaxDescriptorMap
	MaxPathVisits    = pexcheck.MaxPathVisits
	MaxPathResults   = pexcheck.MaxPathResults
	PathTimeout      = pexcheck.PathTimeout
	MaxFilterWork    = pexcheck.MaxFilterWork
	// AdmitWait is how long a presentation waits for a checking slot
	// before it is refused with ErrBusy (HTTP 503, Retry-After).
	AdmitWait = time.Second
	// DefaultVerifyTimeout bounds one verification (a verifier fetching
	// DID documents, status lists or registry objects honours it).
	DefaultVerifyTimeout = 15 * time.Second
)

// MaxConcurrentChecks is how many presentations are checked and verified
// at the same time in this process: twice the usable CPUs, at least 4
// (verification may wait on the network). It is read once, when the
// package initializes; changing it later has no effect.
var MaxConcurrentChecks = max(4, 2*runtime.GOMAXPROCS(0))

// ErrBusy means the verifier is checking as many presentations as it
// allows; the sender should retry after a moment (HTTP 503 with
// Retry-After).
var ErrBusy = errors.New("proofs: too many presentations being checked; retry later")

// checkSlots is the process-wide cap on concurrent checks. Like
// recordLocks it is shared by every Service in the process: during a
// config reload the old and the new module instance serve together.
var checkSlots = make(chan struct{}, MaxConcurrentChecks)

// admit takes a checking slot, waiting at most AdmitWait; release gives
// it back.
func admit(ctx context.Context) (release func(), err error) {
	select {
	case checkSlots <- struct{}{}:
		return func() { <-checkSlots }, nil
	default:
	}
	t := time.NewTimer(AdmitWait)
	defer t.Stop()
	select {
	case checkSlots <- struct{}{}:
		return func() { <-checkSlots }, nil
	case <-t.C:
		return nil, ErrBusy
	case <-ctx.Done():
		return nil, ErrBusy
	}
}
