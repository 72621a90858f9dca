package w3c

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/jwtvc"
	"github.com/proofgate/proofgate/internal/verify/ldp"
)

// presentation is a presentation whose own proof has been checked.
type presentation struct {
	check verify.ProofCheck
	// holder is the DID that signed the presentation ("" when its proof
	// failed).
	holder string
	// reason and detail are the presentation's own first failure.
	reason, detail string
	creds          []any // map[string]any (JSON-LD) or string (JWT)
}

func (p *presentation) fail(reason, detail string) {
	if p.reason == "" {
		p.reason, p.detail = reason, detail
	}
}

// credentialsOf reads verifiableCredential (one or an array).
func (v *Verifier) credentialsOf(val any) ([]any, string) {
	var list []any
	switch c := val.(type) {
	case nil:
		return nil, "the presentation holds no credential"
	case []any:
		list = c
	default:
		list = []any{c}
	}
	if len(list) == 0 {
		return nil, "the presentation holds no credential"
	}
	if len(list) > v.o.maxCredentials() {
		return nil, fmt.Sprintf("more than %d credentials", v.o.maxCredentials())
	}
	for _, c := range list {
		switch c.(type) {
		case map[string]any, string:
		default:
			return nil, "a credential is neither an object nor a JWT"
		}
	}
	return list, ""
}

// ldpPresentation checks a JSON-LD presentation and its proof. A nil
// presentation comes with the final verdict.
func (v *Verifier) ldpPresentation(ctx context.Context, raw []byte, in verify.Input) (*presentation, verify.Verdict) {
	var vp map[string]any
	if err := json.Unmarshal(raw, &vp); err != nil {
		return nil, verify.Fail(Format, verify.ReasonMalformed, "the presentation is not a JSON object")
	}
	if err := v.canon.Limits().CheckShape(vp); err != nil {
		return nil, verify.Fail(Format, verify.ReasonLimits, "presentation exceeds the verifier's limits")
	}
	creds, problem := v.credentialsOf(vp["verifiableCredential"])
	if problem != "" {
		reason := verify.ReasonMalformed
		if strings.HasPrefix(problem, "more than") {
			reason = verify.ReasonLimits
		}
		return nil, verify.Fail(Format, reason, problem)
	}
	p := &presentation{creds: creds}
	proofs, err := v.ldp.Verify(ctx, vp, ldp.VerifyOptions{Purpose: did.Authentication, At: v.now(), Skew: v.o.clockSkew()})
	if err != nil {
		outcome, reason, detail := classify(err)
		p.check.Signature = outcome
		if m, ok := vp["proof"].(map[string]any); ok {
			p.check.Type, _ = m["type"].(string)
			p.check.VerificationMethod, _ = m["verificationMethod"].(string)
			p.check.Type = verify.Truncate(p.check.Type, 100)
			p.check.VerificationMethod = verify.Truncate(p.check.VerificationMethod, 200)
		}
		p.fail(reason, "presentation: "+detail)
		return p, verify.Verdict{}
	}
	proof := proofs[0]
	p.check.Type = proof.Type
	p.check.VerificationMethod = verify.Truncate(proof.VerificationMethod, 200)
	p.check.Signature = verify.OK
	p.holder = controllerDID(proof.VerificationMethod, proof.Controller)
	v.checkChallenge(p, proof.Challenge, in.Challenge)
	v.checkDomain(p, proof.Domains, in.Domain)
	if h := idOf(vp["holder"]); h != "" && h != p.holder {
		p.check.HolderBinding = verify.Failed
		p.fail(verify.ReasonHolderBinding, "presentation: holder is not the DID that signed it")
	}
	return p, verify.Verdict{}
}

// jwtPresentation checks a JWT presentation (jwt_vp).
func (v *Verifier) jwtPresentation(ctx context.Context, token string, in verify.Input) (*presentation, verify.Verdict) {
	p := &presentation{}
	p.check.Type = "JWT"
	vt, err := jwtvc.Verify(ctx, v.keys, token, did.Authentication)
	if err != nil {
		outcome, reason, detail := classify(err)
		p.check.Signature = outcome
		p.fail(reason, "presentation: "+detail)
		return p, verify.Verdict{}
	}
	p.check.Type = "JWT/" + vt.Alg
	p.check.VerificationMethod = verify.Truncate(vt.VerificationMethod, 200)
	p.check.Signature = verify.OK
	p.holder = controllerDID(vt.VerificationMethod, vt.Controller)
	if vt.Claims.Issuer != "" && vt.Claims.Issuer != p.holder {
		// iss names the holder; another DID signed: like a JSON-LD
		// presentation whose holder is not its signer.
		p.check.HolderBinding = verify.Failed
		p.fail(verify.ReasonHolderBinding, "presentation: iss is not the DID that signed it")
	}
	if vt.Claims.VP == nil {
		return nil, verify.Fail(Format, verify.ReasonMalformed, "the JWT has no vp claim")
	}
	if err := v.canon.Limits().CheckShape(vt.Claims.VP); err != nil {
		return nil, verify.Fail(Format, verify.ReasonLimits, "presentation exceeds the verifier's limits")
	}
	creds, problem := v.credentialsOf(vt.Claims.VP["verifiableCredential"])
	if problem != "" {
		return nil, verify.Fail(Format, verify.ReasonMalformed, problem)
	}
	p.creds = creds
	v.checkChallenge(p, vt.Claims.Nonce, in.Challenge)
	v.checkDomain(p, []string(vt.Claims.Audience), in.Domain)
	now, skew := v.now(), v.o.clockSkew()
	if vt.Claims.Expiry != nil && now.Add(-skew).After(vt.Claims.Expiry.Time()) {
		p.fail(verify.ReasonExpired, "presentation: expired")
	}
	if vt.Claims.NotBefore != nil && now.Add(skew).Before(vt.Claims.NotBefore.Time()) {
		p.fail(verify.ReasonNotYetValid, "presentation: not yet valid")
	}
	if h := idOf(vt.Claims.VP["holder"]); h != "" && h != p.holder {
		p.check.HolderBinding = verify.Failed
		p.fail(verify.ReasonHolderBinding, "presentation: holder is not the DID that signed it")
	}
	return p, verify.Verdict{}
}

// checkChallenge: the proof must carry our challenge.
func (v *Verifier) checkChallenge(p *presentation, got, want string) {
	if want != "" && equal(got, want) {
		p.check.Challenge = verify.OK
		return
	}
	p.check.Challenge = verify.Failed
	if got == "" {
		p.fail(verify.ReasonChallenge, "presentation: the proof carries no challenge")
	} else {
		p.fail(verify.ReasonChallenge, "presentation: the proof carries another challenge")
	}
}

// checkDomain: a proof without domain passes unless require_domain
// (ACA-Py never signs one); one with a domain must name ours.
func (v *Verifier) checkDomain(p *presentation, got []string, want string) {
	if len(got) == 0 {
		if v.o.RequireDomain && want != "" {
			p.check.Domain = verify.Failed
			p.fail(verify.ReasonDomain, "presentation: the proof carries no domain")
		}
		return
	}
	if want == "" {
		return
	}
	for _, d := range got {
		if equal(d, want) {
			p.check.Domain = verify.OK
			return
		}
	}
	p.check.Domain = verify.Failed
	p.fail(verify.ReasonDomain, "presentation: the proof carries another domain")
}

// controllerDID is the DID a verification method belongs to.
func controllerDID(vm, controller string) string {
	if strings.HasPrefix(controller, "did:") {
		return controller
	}
	d, _ := did.Split(vm)
	return d
}

// idOf reads an id given as a string or as an object with an id.
func idOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		s, _ := x["id"].(string)
		return s
	}
	return ""
}

// parseDate reads an optional dateTime field; ok false when present but
// unreadable.
func parseDate(v any) (t time.Time, present, ok bool) {
	if v == nil {
		return time.Time{}, false, true
	}
	s, isStr := v.(string)
	if !isStr {
		return time.Time{}, true, false
	}
	t, err := ldp.ParseTime(s)
	return t, true, err == nil
}
