package w3c

import (
	"errors"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/jsonld"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/jwtvc"
	"github.com/proofgate/proofgate/internal/verify/ldp"
)

// reasonBusy marks a check that could not run because every
// canonicalization slot stayed taken: our capacity, not the prover's
// fault, so Verify reports an error (the pipeline keeps the record for a
// retry) instead of a verdict.
const reasonBusy = "busy"

// classify maps a proof verification error to a signature outcome, a
// coarse reason and a short detail that names no internals.
func classify(err error) (outcome, reason, detail string) {
	if u, ok := jsonld.UnsupportedContext(err); ok {
		return verify.Failed, verify.ReasonContext, "unsupported context " + verify.Truncate(u, 200)
	}
	switch {
	case errors.Is(err, jsonld.ErrLimits):
		return verify.Failed, verify.ReasonLimits, "document exceeds the verifier's limits"
	case errors.Is(err, jsonld.ErrBusy):
		return verify.Failed, reasonBusy, "the verifier is busy"
	case errors.Is(err, jsonld.ErrTimeout):
		return verify.Failed, verify.ReasonLimits, "canonicalization took too long"
	case errors.Is(err, ldp.ErrProofExpired):
		return verify.Failed, verify.ReasonExpired, "the proof has expired"
	case errors.Is(err, ldp.ErrSignature), errors.Is(err, jwtvc.ErrSignature):
		return verify.Failed, verify.ReasonSignature, "signature does not verify"
	case errors.Is(err, ldp.ErrPurpose):
		return verify.Failed, verify.ReasonSignature, "wrong proof purpose"
	case errors.Is(err, did.ErrNotAuthorized):
		return verify.Failed, verify.ReasonSignature, "key not authorized for the proof purpose"
	case errors.Is(err, did.ErrNotFound):
		return verify.Failed, verify.ReasonSignature, "verification method not found"
	case errors.Is(err, did.ErrUnreachable):
		return verify.Failed, verify.ReasonSignature, "DID document could not be fetched"
	case errors.Is(err, ldp.ErrUnsupported), errors.Is(err, jwtvc.ErrUnsupported), errors.Is(err, did.ErrUnsupported):
		return verify.Unsupported, verify.ReasonUnsupported, "unsupported proof type, algorithm or DID method"
	case errors.Is(err, did.ErrInvalid):
		return verify.Failed, verify.ReasonSignature, "invalid DID or DID document"
	default:
		// ldp.ErrMalformed, jwtvc.ErrMalformed, JSON-LD processing errors.
		return verify.Failed, verify.ReasonMalformed, "malformed proof or JSON-LD"
	}
}
