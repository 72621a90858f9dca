package proofs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/textcut"
	"github.com/proofgate/proofgate/internal/verify"
)

// MetadataVerification is the metadata key of what was checked about a
// presentation: {answersRequest, signaturesVerified} and, when a verifier
// judged it, the verdict (verify.Verdict).
const MetadataVerification = "verification"

// Judgement is what the pipeline concluded about a presentation.
type Judgement struct {
	// Format is the presentation's attachment format.
	Format string
	// Problems is what the presentation lacks to answer the request
	// (structural check); any problem abandons the record.
	Problems []string
	// Verdict is the verifier's judgement; nil when no verifier judges the
	// format (or the structural check failed first).
	Verdict *verify.Verdict
}

// errDelivered: the same presentation (same @id) was handled before.
var errDelivered = errors.New("proofs: presentation already handled")

// ReceivePresentation records a presentation on a record in request-sent.
// Under the record's lock it re-reads the record, checks its state (a
// presentation delivered again is errDelivered, any other state a
// *backend.ConflictError) and only then runs judge, the expensive part
// (structural check and verification), so copies of one presentation
// are judged once, one after the other. It then moves the record, in one
// write, to presentation-received or, when the judgement fails, to
// abandoned with isVerified false and the reason as errorMessage.
//
// A copy waits at most AdmitWait for the lock, then gets ErrBusy: a
// sender must not pile copies, each holding its message, behind a slow
// verification.
func (s *Service) ReceivePresentation(ctx context.Context, recordID, msgID string, p Presentation, judge func(*Doc) (Judgement, error)) (*Doc, Judgement, error) {
	var j Judgement
	doc, err := s.updateWithin(ctx, recordID, AdmitWait, func(d *Doc) error {
		if d.Record.State != backend.StateRequestSent {
			if sameMessage(d.Presentation, msgID) {
				return errDelivered
			}
			return &backend.ConflictError{State: d.Record.State}
		}
		var err error
		if j, err = judge(d); err != nil {
			return err
		}
		if err := applyJudgement(d, p, j); err != nil {
			return err
		}
		// The prover's ~service becomes the record's connection (connections.go).
		return s.attachConnection(ctx, d, p.TheirService, p.TheirVerkey)
	}, nil)
	if errors.Is(err, errDelivered) {
		doc, lerr := s.Load(ctx, recordID)
		if lerr != nil {
			return nil, j, lerr
		}
		return doc, j, errDelivered
	}
	return doc, j, err
}

// applyJudgement moves a record in request-sent by the judgement.
func applyJudgement(d *Doc, p Presentation, j Judgement) error {
	notVerified := false
	switch {
	case len(j.Problems) > 0:
		keepPresentation(d, p)
		d.Record.IsVerified = &notVerified
		return toAbandoned(d, j.ErrorMessage())
	case j.Verdict != nil && !j.Verdict.Verified:
		keepPresentation(d, p)
		d.Record.IsVerified = &notVerified
		setVerification(d, verificationMetadata(j))
		return toAbandoned(d, j.ErrorMessage())
	case j.Verdict != nil:
		verified := true
		return toPresentationReceived(d, p, verificationMetadata(j), &verified)
	default:
		return toPresentationReceived(d, p, verificationMetadata(j), nil)
	}
}

// Failed reports whether the judgement abandons the record.
func (j Judgement) Failed() bool {
	return len(j.Problems) > 0 || (j.Verdict != nil && !j.Verdict.Verified)
}

// ErrorMessage is the record's errorMessage for a failed judgement: what
// is missing, or the verdict's coarse reason and detail.
func (j Judgement) ErrorMessage() string {
	if len(j.Problems) > 0 {
		return textcut.Prefix("the presentation does not answer the request: "+strings.Join(j.Problems, "; "), maxErrorMessage)
	}
	if j.Verdict == nil {
		return ""
	}
	msg := "the presentation failed verification: " + j.reason()
	if j.Verdict.Detail != "" {
		msg += " (" + j.Verdict.Detail + ")"
	}
	return textcut.Prefix(msg, maxErrorMessage)
}

// ProverExplanation is what the problem report tells the prover: what
// its presentation lacks (its own data), or only the coarse reason
// verification failed, never the verifier's details.
func (j Judgement) ProverExplanation() string {
	if len(j.Problems) > 0 || j.Verdict == nil {
		return j.ErrorMessage()
	}
	return "the presentation failed verification: " + j.reason()
}

func (j Judgement) reason() string {
	if j.Verdict.Reason == "" {
		return verify.ReasonMalformed
	}
	return textcut.Prefix(j.Verdict.Reason, 64)
}

// AbandonByProver abandons a record on the prover's problem report. Once a
// presentation is recorded only its sender may abandon the record: a
// problem report from any other key is refused (ErrUnknownThread), and
// after an anoncrypted presentation, whose sender is unknown, no problem
// report abandons it (the API caller decides by accepting or not). The
// check runs under the record's lock, so a presentation recorded
// meanwhile is seen. Like a copy of a presentation, a problem report waits
// at most AdmitWait for that lock (ErrBusy, a 503, after it): behind a
// slow verification, reports sent to the thread must not pile up, each
// holding its message.
func (s *Service) AbandonByProver(ctx context.Context, recordID, sender, errorMessage string) (backend.ProofRecord, error) {
	doc, err := s.updateWithin(ctx, recordID, AdmitWait, func(d *Doc) error {
		if len(d.Presentation) > 0 && d.Record.State != backend.StateAbandoned && d.Record.State != backend.StateDone {
			if d.TheirVerkey == "" {
				return fmt.Errorf("%w: the presentation was anoncrypted; no problem report can abandon it", ErrUnknownThread)
			}
			if sender != d.TheirVerkey {
				return fmt.Errorf("%w: only the presentation's sender may abandon the record", ErrUnknownThread)
			}
		}
		return toAbandoned(d, errorMessage)
	}, nil)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	return doc.Record, nil
}
