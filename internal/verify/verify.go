// Package verify is the seam between the local verifier's record pipeline
// (internal/proofs) and the cryptographic verifiers, one per presentation
// attachment format: W3C credentials (presentation exchange) and AnonCreds
// (indy). A Verifier judges one presentation against the request it
// answers and returns a structured Verdict; the pipeline stores the verdict
// on the record (metadata.verification), sets isVerified from it, and
// abandons the record with a coarse problem report when it fails.
//
// A Verdict says what a prover sent; an error says the verifier itself
// could not work (a bug, storage gone). A presentation that is bad in any
// way, however strange, is a Verdict with Verified false, never an error.
package verify

import (
	"context"
	"encoding/json"
)

// Outcomes of one check. The empty string means the check did not apply
// (a credential without credentialStatus has no status outcome).
const (
	OK          = "ok"
	Failed      = "failed"
	Unsupported = "unsupported"
	Revoked     = "revoked"
	Unknown     = "unknown"
	Unchecked   = "unchecked" // revocation that could not be checked (AnonCreds)
	Expired     = "expired"
	NotYetValid = "not-yet-valid"
)

// Coarse reasons a presentation failed, shown to the API caller in
// errorMessage/metadata.verification and to the prover in the problem
// report. They name the kind of failure, never internals.
const (
	ReasonSignature           = "signature"
	ReasonExpired             = "expired"
	ReasonNotYetValid         = "not-yet-valid"
	ReasonRevoked             = "revoked"
	ReasonStatusUnknown       = "status-unknown"
	ReasonRevocationUnchecked = "revocation-unchecked"
	ReasonUntrustedIssuer     = "untrusted-issuer"
	ReasonUnsupported         = "unsupported"
	ReasonChallenge           = "challenge"
	ReasonDomain              = "domain"
	ReasonHolderBinding       = "holder-binding"
	ReasonContext             = "unsupported-context"
	ReasonUnknownCredDef      = "unknown-credential-definition"
	ReasonEncoding            = "encoding"
	ReasonRestriction         = "restriction"
	ReasonPredicate           = "predicate"
	ReasonLimits              = "limits"
	ReasonMalformed           = "malformed"
)

// Input is what a Verifier judges.
type Input struct {
	// Format is the presentation's attachment format, e.g.
	// "dif/presentation-exchange/submission@v1.0" or "hlindy/proof@v2.0".
	Format string
	// Request is the format attachment of our own request-presentation:
	// the DIF {options, presentation_definition} or the AnonCreds proof
	// request (with its nonce).
	Request json.RawMessage
	// Presentation is the format attachment of the prover's presentation.
	Presentation json.RawMessage
	// Challenge and Domain are what the request asked the presentation's
	// proof to carry (DIF); empty for AnonCreds, whose nonce is in Request.
	Challenge, Domain string
	// OrgID is the org that owns the record (trust lists and registries
	// may be per org).
	OrgID string
}

// Verdict is the result of verifying one presentation. It is stored on
// the record as metadata.verification: no secrets, bounded size (a
// verifier caps Credentials and every string it copies from input).
type Verdict struct {
	// Format is the attachment format judged.
	Format string `json:"format"`
	// Verified is true only when every signature verified and every check
	// passed.
	Verified bool `json:"verified"`
	// Reason is the first reason it failed (one of the Reason constants);
	// empty when Verified.
	Reason string `json:"reason,omitempty"`
	// Detail says a little more for the API caller (which credential,
	// which check), bounded, never internals such as stack traces,
	// addresses or key material.
	Detail string `json:"detail,omitempty"`
	// Presentation is the check of the presentation's own proof (W3C);
	// nil where the format has none (AnonCreds binds through the nonce).
	Presentation *ProofCheck `json:"presentation,omitempty"`
	// Credentials holds one entry per presented credential, in order.
	Credentials []Credential `json:"credentials"`
}

// ProofCheck is the check of the presentation's own proof.
type ProofCheck struct {
	// Type is the proof type (Ed25519Signature2018, DataIntegrityProof
	// with its cryptosuite, JWT with its alg).
	Type string `json:"type,omitempty"`
	// VerificationMethod is the key the proof names.
	VerificationMethod string `json:"verificationMethod,omitempty"`
	// Signature is ok, failed or unsupported.
	Signature string `json:"signature"`
	// Challenge and Domain are ok or failed; Domain is empty when neither
	// the request nor the proof carries one.
	Challenge string `json:"challenge,omitempty"`
	Domain    string `json:"domain,omitempty"`
	// HolderBinding is ok or failed when a credential subject is a DID.
	HolderBinding string `json:"holderBinding,omitempty"`
}

// Credential is the verdict on one presented credential.
type Credential struct {
	// ID is the credential's id (W3C) or cred_def_id (AnonCreds).
	ID string `json:"id,omitempty"`
	// Issuer is the issuer's DID (W3C) or issuer id (AnonCreds).
	Issuer string `json:"issuer,omitempty"`
	// Signature is ok, failed or unsupported.
	Signature string `json:"signature"`
	// Status is ok, revoked or unknown; empty when the credential has no
	// status (W3C) or is not revocable (AnonCreds).
	Status string `json:"status,omitempty"`
	// Revocation is for AnonCreds: ok, revoked or unchecked; empty when no
	// non-revocation proof was asked for.
	Revocation string `json:"revocation,omitempty"`
	// Validity is ok, expired or not-yet-valid.
	Validity string `json:"validity,omitempty"`
	// Trusted is true when the issuer is trusted: on the trust list, or
	// any issuer when no list is configured.
	Trusted bool `json:"trusted"`
	// Reason is this credential's first failure, if any.
	Reason string `json:"reason,omitempty"`
}

// Verifier verifies presentations of one or more attachment formats.
type Verifier interface {
	// Formats lists the attachment formats this verifier judges.
	Formats() []string
	// Verify judges one presentation. ctx carries the deadline the
	// pipeline allows; a verifier that fetches (DID documents, status
	// lists, credential definitions) honours it.
	Verify(ctx context.Context, in Input) (Verdict, error)
}

// Set picks the verifier for a format.
type Set map[string]Verifier

// NewSet indexes verifiers by the formats they judge; a later verifier for
// a format replaces an earlier one.
func NewSet(vs ...Verifier) Set {
	s := Set{}
	for _, v := range vs {
		for _, f := range v.Formats() {
			s[f] = v
		}
	}
	return s
}

// For returns the verifier of a format, or nil.
func (s Set) For(format string) Verifier { return s[format] }

// Fail returns a failed verdict with a reason and a bounded detail.
func Fail(format, reason, detail string) Verdict {
	return Verdict{Format: format, Reason: reason, Detail: Truncate(detail, MaxDetail)}
}

// MaxDetail caps Verdict.Detail.
const MaxDetail = 300

// Truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
