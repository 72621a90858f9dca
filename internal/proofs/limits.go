package proofs

import (
	"context"
	"time"

	"github.com/proofgate/proofgate/internal/checkslots"
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
	// (checkslots.DefaultWait) before it is refused with ErrBusy (HTTP
	// 503, Retry-After), and for its record's lock.
	AdmitWait = checkslots.DefaultWait
	// DefaultVerifyTimeout bounds one verification (a verifier fetching
	// DID documents, status lists or registry objects honours it).
	DefaultVerifyTimeout = 15 * time.Second
)

// MaxConcurrentChecks is how many presentations are checked and verified
// at the same time in this process (checkslots.Max: the cap is shared
// with the credo backend's accept-time check). It is read once, when the
// package initializes; changing it has no effect.
var MaxConcurrentChecks = checkslots.Max

// ErrBusy means the verifier is checking as many presentations as it
// allows; the sender should retry after a moment (HTTP 503 with
// Retry-After). It is checkslots.ErrBusy.
var ErrBusy = checkslots.ErrBusy

// admit takes a checking slot in the process-wide cap (checkslots.Admit,
// which is shared by every Service in the process, as recordLocks is:
// during a config reload the old and the new module instance serve
// together), waiting at most checkslots.Wait (AdmitWait, unless a test
// shortens it); release gives it back.
func admit(ctx context.Context) (release func(), err error) {
	return checkslots.Admit(ctx)
}
