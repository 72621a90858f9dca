// Package w3c is the local verifier's judge of W3C presentations in the
// presentation-exchange format (dif/presentation-exchange/submission@v1.0):
// JSON-LD presentations (ldp_vp) with Linked Data or Data Integrity proofs,
// and JWT presentations (jwt_vp) with JWT or JSON-LD credentials. It checks
// the presentation's proof (challenge, domain, holder), and per credential
// the issuer's signature, validity dates, status list and trust, and
// returns a verify.Verdict.
package w3c

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/jsonld"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/ldp"
	"github.com/proofgate/proofgate/internal/verify/status"
)

// Format is the attachment format this verifier judges.
const Format = "dif/presentation-exchange/submission@v1.0"

// Env is what the verifier takes from its host rather than from options.
type Env struct {
	// AllowPrivate lets did:web documents and status lists be fetched
	// from non-public addresses (the local backend's
	// allow_private_endpoints).
	AllowPrivate bool
	// HTTPClient replaces the guarded client for did:web and status
	// lists (tests with TLS test servers); nil: the outbound guard.
	HTTPClient *http.Client
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Keys replaces the DID resolver (tests); nil: did.NewResolver.
	Keys did.KeyResolver
}

// Verifier implements verify.Verifier for presentation exchange.
type Verifier struct {
	o      Options
	now    func() time.Time
	canon  *jsonld.Canonicalizer
	keys   did.KeyResolver
	ldp    *ldp.Verifier
	status *status.Checker
}

var (
	_ verify.Verifier     = (*Verifier)(nil)
	_ status.ListVerifier = (*Verifier)(nil)
)

// New builds a Verifier; o must have passed Validate.
func New(o Options, env Env) (*Verifier, error) {
	loader, err := jsonld.NewLoader(o.JSONLDContexts)
	if err != nil {
		return nil, err
	}
	v := &Verifier{o: o, now: env.Now, canon: jsonld.NewCanonicalizer(loader, jsonld.Limits{})}
	if v.now == nil {
		v.now = time.Now
	}
	v.keys = env.Keys
	if v.keys == nil {
		v.keys = did.NewResolver(did.Options{UniversalResolver: o.DIDResolver, UniversalMethods: o.DIDResolverMethods, AllowPrivate: env.AllowPrivate, WebClient: env.HTTPClient})
	}
	v.ldp = &ldp.Verifier{Canon: v.canon, Keys: v.keys}
	v.status = status.New(status.Options{AllowPrivate: env.AllowPrivate, Client: env.HTTPClient, Now: v.now}, v)
	return v, nil
}

// Formats implements verify.Verifier.
func (v *Verifier) Formats() []string { return []string{Format} }

// Verify implements verify.Verifier. Every problem of the presentation is
// a failed Verdict; the error is only for the verifier's own failures.
func (v *Verifier) Verify(ctx context.Context, in verify.Input) (verify.Verdict, error) {
	if len(in.Presentation) > MaxPresentationSize {
		return verify.Fail(Format, verify.ReasonLimits, fmt.Sprintf("presentation larger than %d bytes", MaxPresentationSize)), nil
	}
	raw := bytes.TrimSpace(in.Presentation)
	var p *presentation
	var verdict verify.Verdict
	if token, ok := jwtString(raw); ok {
		p, verdict = v.jwtPresentation(ctx, token, in)
	} else {
		p, verdict = v.ldpPresentation(ctx, raw, in)
	}
	if p != nil {
		verdict = v.judge(ctx, p, in)
	}
	if busy(verdict) {
		return verify.Verdict{}, errors.New("w3c: no canonicalization slot became free in time")
	}
	if err := ctx.Err(); err != nil {
		// Out of time: the verdict may blame the prover for our own
		// deadline (a DID document or status list not fetched in time).
		// Say we could not judge, so the pipeline can retry.
		return verify.Verdict{}, fmt.Errorf("w3c: verification interrupted: %w", err)
	}
	return verdict, nil
}

// jwtString recognizes a JWT presentation: a JSON string (the attachment
// held the compact JWT) or the bare compact JWT.
func jwtString(raw []byte) (string, bool) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, true
		}
		return "", false
	}
	if len(raw) > 2 && raw[0] == 'e' && raw[1] == 'y' {
		return string(raw), true
	}
	return "", false
}

// busy reports whether some check could not run for lack of capacity.
func busy(v verify.Verdict) bool {
	if v.Reason == reasonBusy {
		return true
	}
	for _, c := range v.Credentials {
		if c.Reason == reasonBusy {
			return true
		}
	}
	return false
}

// equal compares a prover-supplied value with ours in constant time.
func equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
