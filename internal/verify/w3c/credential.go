package w3c

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/jwtvc"
	"github.com/proofgate/proofgate/internal/verify/ldp"
	"github.com/proofgate/proofgate/internal/verify/status"
)

// signedCredential is a credential whose issuer signature verified: the
// fields a verifier may rely on, read from signed data only.
type signedCredential struct {
	id, issuer            string
	validFrom, validUntil time.Time
	subjects              []string
	status                any
	subject               any // credentialSubject as signed
}

// judge assembles the verdict: the presentation's own checks, then each
// credential's.
func (v *Verifier) judge(ctx context.Context, p *presentation, in verify.Input) verify.Verdict {
	verdict := verify.Verdict{Format: Format, Presentation: &p.check, Credentials: []verify.Credential{}}
	if p.reason != "" && p.check.Signature != verify.OK {
		// A presentation whose proof fails is not looked into further:
		// nothing in it is known to come from the holder.
		verdict.Reason, verdict.Detail = p.reason, verify.Truncate(p.detail, verify.MaxDetail)
		return verdict
	}
	reason, detail := p.reason, p.detail
	bindingFailed := false
	for i, c := range p.creds {
		cv, sc := v.judgeCredential(ctx, c)
		if cv.Reason == "" && sc != nil && v.o.holderBinding() {
			for _, s := range sc.subjects {
				if strings.HasPrefix(s, "did:") && s != p.holder {
					cv.Reason = verify.ReasonHolderBinding
					bindingFailed = true
					break
				}
			}
		}
		if cv.Reason == "" && sc != nil && sc.status != nil {
			v.checkStatus(ctx, &cv, sc)
		}
		if cv.Reason != "" && reason == "" {
			reason = cv.Reason
			detail = fmt.Sprintf("credential %d: %s", i+1, describe(cv.Reason))
		}
		verdict.Credentials = append(verdict.Credentials, cv)
	}
	if v.o.holderBinding() && hasDIDSubject(p) {
		if bindingFailed {
			p.check.HolderBinding = verify.Failed
		} else if p.check.HolderBinding == "" {
			p.check.HolderBinding = verify.OK
		}
	}
	verdict.Reason, verdict.Detail = reason, verify.Truncate(detail, verify.MaxDetail)
	verdict.Verified = reason == ""
	return verdict
}

// hasDIDSubject is true when binding applied to some credential.
func hasDIDSubject(p *presentation) bool {
	for _, c := range p.creds {
		if m, ok := c.(map[string]any); ok {
			for _, s := range subjectIDs(m["credentialSubject"]) {
				if strings.HasPrefix(s, "did:") {
					return true
				}
			}
		} else {
			return true // JWT credentials carry sub
		}
	}
	return false
}

func describe(reason string) string {
	switch reason {
	case verify.ReasonSignature:
		return "signature does not verify"
	case verify.ReasonExpired:
		return "expired"
	case verify.ReasonNotYetValid:
		return "not yet valid"
	case verify.ReasonRevoked:
		return "revoked"
	case verify.ReasonStatusUnknown:
		return "status could not be checked"
	case verify.ReasonUntrustedIssuer:
		return "untrusted issuer"
	case verify.ReasonHolderBinding:
		return "subject is not the presenting holder"
	case verify.ReasonContext:
		return "unsupported JSON-LD context"
	case verify.ReasonUnsupported:
		return "unsupported proof"
	case verify.ReasonLimits:
		return "exceeds the verifier's limits"
	}
	return "malformed"
}

// judgeCredential checks one credential's signature, validity and trust.
// The signed fields are returned when the signature verified.
func (v *Verifier) judgeCredential(ctx context.Context, c any) (verify.Credential, *signedCredential) {
	var (
		cv  verify.Credential
		sc  *signedCredential
		err error
	)
	if claimed := claimedIssuer(c); claimed != "" && !trusted(v.o.TrustedIssuers, claimed) {
		// Off the trust list, it fails whatever its proof says: its key
		// is not resolved, so a did:web the prover names is not fetched
		// for a credential that cannot pass.
		if m, ok := c.(map[string]any); ok {
			cv.ID = verify.Truncate(idOf(m["id"]), 200)
		}
		cv.Issuer = verify.Truncate(claimed, 200)
		cv.Signature, cv.Reason = verify.Unchecked, verify.ReasonUntrustedIssuer
		return cv, nil
	}
	switch x := c.(type) {
	case map[string]any:
		cv.ID = verify.Truncate(idOf(x["id"]), 200)
		cv.Issuer = verify.Truncate(idOf(x["issuer"]), 200)
		sc, err = v.ldpCredential(ctx, x)
	case string:
		sc, err = v.jwtCredential(ctx, x)
	}
	if err != nil {
		outcome, reason, _ := classify(err)
		if de, ok := err.(detailError); ok {
			outcome, reason = verify.Failed, de.reason
		}
		cv.Signature, cv.Reason = outcome, reason
		return cv, nil
	}
	cv.ID = verify.Truncate(sc.id, 200)
	cv.Issuer = verify.Truncate(sc.issuer, 200)
	cv.Signature = verify.OK
	cv.Trusted = trusted(v.o.TrustedIssuers, sc.issuer)
	if !cv.Trusted {
		cv.Reason = verify.ReasonUntrustedIssuer
	}
	now, skew := v.now(), v.o.clockSkew()
	cv.Validity = verify.OK
	switch {
	case !sc.validUntil.IsZero() && now.Add(-skew).After(sc.validUntil):
		cv.Validity = verify.Expired
		setReason(&cv, verify.ReasonExpired)
	case !sc.validFrom.IsZero() && now.Add(skew).Before(sc.validFrom):
		cv.Validity = verify.NotYetValid
		setReason(&cv, verify.ReasonNotYetValid)
	}
	return cv, sc
}

func setReason(cv *verify.Credential, r string) {
	if cv.Reason == "" {
		cv.Reason = r
	}
}

// checkStatus fetches the status list of a credential that passed every
// other check.
func (v *Verifier) checkStatus(ctx context.Context, cv *verify.Credential, sc *signedCredential) {
	r := v.status.Check(ctx, sc.status, sc.issuer)
	switch r.Outcome {
	case status.OK:
		cv.Status = verify.OK
	case status.Revoked:
		cv.Status = verify.Revoked
		cv.Reason = verify.ReasonRevoked
	case status.Malformed:
		// Refused whatever status_unknown says (status.Malformed).
		cv.Status = verify.Unknown
		cv.Reason = verify.ReasonMalformed
	default:
		cv.Status = verify.Unknown
		if !v.o.acceptUnknown() {
			cv.Reason = verify.ReasonStatusUnknown
		}
	}
}

// detailError is a credential failure that is not a proof error.
type detailError struct{ reason, detail string }

func (e detailError) Error() string { return e.detail }

// ldpCredential verifies a JSON-LD credential's proof and reads its
// signed fields.
func (v *Verifier) ldpCredential(ctx context.Context, cred map[string]any) (*signedCredential, error) {
	proofs, err := v.ldp.Verify(ctx, cred, ldp.VerifyOptions{Purpose: did.AssertionMethod, Safe: true, At: v.now(), Skew: v.o.clockSkew()})
	if err != nil {
		return nil, err
	}
	issuer := idOf(cred["issuer"])
	for _, p := range proofs {
		if controllerDID(p.VerificationMethod, p.Controller) != issuer {
			return nil, detailError{verify.ReasonSignature, "the proof is not by the issuer"}
		}
	}
	sc := &signedCredential{id: idOf(cred["id"]), issuer: issuer, subjects: subjectIDs(cred["credentialSubject"]), status: cred["credentialStatus"], subject: cred["credentialSubject"]}
	if err := readValidity(sc, cred); err != nil {
		return nil, err
	}
	if slices.ContainsFunc(proofs, func(p ldp.Proof) bool { return p.RDF }) {
		if err := checkContexts(cred); err != nil {
			return nil, err
		}
		if err := v.checkMeaning(ctx, cred, sc); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// readValidity reads validFrom/issuanceDate and validUntil/expirationDate.
func readValidity(sc *signedCredential, cred map[string]any) error {
	for _, f := range []struct {
		names []string
		into  *time.Time
	}{
		{[]string{"validFrom", "issuanceDate"}, &sc.validFrom},
		{[]string{"validUntil", "expirationDate"}, &sc.validUntil},
	} {
		for _, name := range f.names {
			t, present, ok := parseDate(cred[name])
			if !ok {
				return detailError{verify.ReasonMalformed, name + " is not a dateTime"}
			}
			if present {
				if f.into.IsZero() || (f.into == &sc.validFrom && t.After(*f.into)) || (f.into == &sc.validUntil && t.Before(*f.into)) {
					*f.into = t // the stricter of the two spellings
				}
			}
		}
	}
	return nil
}

// jwtCredential verifies a JWT credential (jwt_vc) and reads its claims.
func (v *Verifier) jwtCredential(ctx context.Context, token string) (*signedCredential, error) {
	vt, err := jwtvc.Verify(ctx, v.keys, token, did.AssertionMethod)
	if err != nil {
		return nil, err
	}
	issuer := vt.Claims.Issuer
	if issuer == "" || controllerDID(vt.VerificationMethod, vt.Controller) != issuer {
		return nil, detailError{verify.ReasonSignature, "the JWT is not signed by its issuer"}
	}
	vc := vt.Claims.VC
	if vc == nil {
		return nil, detailError{verify.ReasonMalformed, "the JWT has no vc claim"}
	}
	if inner := idOf(vc["issuer"]); inner != "" && inner != issuer {
		return nil, detailError{verify.ReasonSignature, "vc.issuer is not iss"}
	}
	sc := &signedCredential{id: vt.Claims.ID, issuer: issuer, status: vc["credentialStatus"]}
	if sc.id == "" {
		sc.id = idOf(vc["id"])
	}
	sc.subject = vc["credentialSubject"]
	sc.subjects = subjectIDs(sc.subject)
	if vt.Claims.Subject != "" {
		sc.subjects = append(sc.subjects, vt.Claims.Subject)
	}
	if err := readValidity(sc, vc); err != nil {
		return nil, err
	}
	if vt.Claims.NotBefore != nil && vt.Claims.NotBefore.Time().After(sc.validFrom) {
		sc.validFrom = vt.Claims.NotBefore.Time()
	}
	if vt.Claims.Expiry != nil && (sc.validUntil.IsZero() || vt.Claims.Expiry.Time().Before(sc.validUntil)) {
		sc.validUntil = vt.Claims.Expiry.Time()
	}
	return sc, nil
}

// subjectIDs reads the ids of credentialSubject (one or an array).
func subjectIDs(v any) []string {
	var out []string
	switch s := v.(type) {
	case map[string]any:
		if id := idOf(s["id"]); id != "" {
			out = append(out, id)
		}
	case []any:
		for _, e := range s {
			if m, ok := e.(map[string]any); ok {
				if id := idOf(m["id"]); id != "" {
					out = append(out, id)
				}
			}
		}
	}
	return out
}
