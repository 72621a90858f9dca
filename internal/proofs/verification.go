package proofs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/verify"
)

// Bounds of a verdict kept as metadata.verification.
const (
	// maxVerdictCredentials caps the credential entries kept.
	maxVerdictCredentials = 32
	// maxVerdictString caps every string copied from a verdict.
	maxVerdictString = 256
)

// judge checks a presentation under its record's lock (ReceivePresentation)
// inside the process-wide cap on concurrent checks: first the structural
// check, then, when it passes and a verifier judges the format, the
// cryptographic verification. The deadline covers both: the structural
// check bounds its own work (PathTimeout, MaxFilterWork, well within it)
// and the verifier has what is left. A format without a verifier is
// judged by the structural check alone (isVerified stays unset).
//
// Errors: ErrBusy when no checking slot frees up in time; a verifier that
// fails (rather than judging) is an error too, and the record stays in
// request-sent so the prover may deliver again.
func (a *Agent) judge(ctx context.Context, d *Doc, msg *inboundMessage) (Judgement, error) {
	release, err := admit(ctx)
	if err != nil {
		return Judgement{}, err
	}
	defer release()
	vctx, cancel := context.WithTimeout(ctx, a.verifyTimeout)
	defer cancel()

	c, problems := checkPresentation(d, msg)
	j := Judgement{Format: c.Format, Problems: problems}
	if len(problems) > 0 {
		return j, nil
	}
	v := a.svc.cfg.Verifiers.For(c.Format)
	if v == nil {
		return j, nil
	}
	in := verify.Input{Format: c.Format, Request: c.Request, Presentation: c.Payload, OrgID: d.Record.OrgID}
	if d.RequestType == backend.RequestPresentationExchange {
		in.Challenge, in.Domain = d.Nonce, d.Domain
	}
	verdict, err := runVerifier(vctx, v, in)
	if err != nil {
		if vctx.Err() != nil {
			return j, fmt.Errorf("%w: verifying the presentation took longer than %s", backend.ErrUnavailable, a.verifyTimeout)
		}
		return j, fmt.Errorf("proofs: the %s verifier failed: %w", c.Format, err)
	}
	bounded := boundVerdict(verdict, c.Format)
	j.Verdict = &bounded
	return j, nil
}

// runVerifier calls a verifier, turning a panic into an error: a bug in
// one verifier must not take the server down.
func runVerifier(ctx context.Context, v verify.Verifier, in verify.Input) (verdict verify.Verdict, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("verifier panicked: %v", r)
		}
	}()
	return v.Verify(ctx, in)
}

// boundVerdict caps what a verdict may put on the record: the number of
// credential entries and the length of every string.
func boundVerdict(v verify.Verdict, format string) verify.Verdict {
	cut := func(s string) string { return verify.Truncate(s, maxVerdictString) }
	v.Format = format
	v.Reason = cut(v.Reason)
	v.Detail = verify.Truncate(v.Detail, verify.MaxDetail)
	if !v.Verified && v.Reason == "" {
		v.Reason = verify.ReasonMalformed
	}
	if v.Presentation != nil {
		p := *v.Presentation
		p.Type, p.VerificationMethod, p.Signature = cut(p.Type), cut(p.VerificationMethod), cut(p.Signature)
		p.Challenge, p.Domain, p.HolderBinding = cut(p.Challenge), cut(p.Domain), cut(p.HolderBinding)
		v.Presentation = &p
	}
	creds := v.Credentials
	if len(creds) > maxVerdictCredentials {
		creds = creds[:maxVerdictCredentials]
	}
	v.Credentials = make([]verify.Credential, len(creds))
	for i, c := range creds {
		c.ID, c.Issuer, c.Signature, c.Status = cut(c.ID), cut(c.Issuer), cut(c.Signature), cut(c.Status)
		c.Revocation, c.Validity, c.Reason = cut(c.Revocation), cut(c.Validity), cut(c.Reason)
		v.Credentials[i] = c
	}
	return v
}

// verificationMetadata is metadata.verification for a presentation that
// answers the request: answersRequest, signaturesVerified, and the
// verdict's fields when a verifier judged it, else a note that only the
// structure was checked.
func verificationMetadata(j Judgement) map[string]any {
	m := map[string]any{}
	if j.Verdict != nil {
		b, err := json.Marshal(j.Verdict)
		if err == nil {
			_ = json.Unmarshal(b, &m)
		}
	} else {
		m["format"] = j.Format
		m["detail"] = "no verifier is configured for " + j.Format + "; only the structure was checked, the signatures were not verified"
	}
	m["answersRequest"] = true
	m["signaturesVerified"] = j.Verdict != nil && signaturesOK(j.Verdict)
	return m
}

// signaturesOK: every signature the verdict names was checked and holds.
func signaturesOK(v *verify.Verdict) bool {
	if v.Verified {
		return true
	}
	if len(v.Credentials) == 0 {
		return false
	}
	if v.Presentation != nil && v.Presentation.Signature != verify.OK {
		return false
	}
	for _, c := range v.Credentials {
		if c.Signature != verify.OK {
			return false
		}
	}
	return true
}

// verifyTimeout is the deadline a verification gets.
func verifyTimeoutOr(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultVerifyTimeout
	}
	return d
}
