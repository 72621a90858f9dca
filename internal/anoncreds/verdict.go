package anoncreds

import (
	"context"
	"errors"
)

// Revocation states of a verdict.
const (
	// RevocationNotRequested: no credential of the presentation had to
	// prove non-revocation (the request has no non_revoked interval that
	// applies, or the credential definitions are not revocable).
	RevocationNotRequested = "not_requested"
	// RevocationUnchecked: a credential had to prove non-revocation and
	// this verifier could not check it (see Verifier).
	RevocationUnchecked = "unchecked"
)

// Verdict is the outcome of verifying one presentation.
type Verdict struct {
	// Verified is true only when every check passed.
	Verified bool `json:"verified"`
	// Revocation is RevocationNotRequested or RevocationUnchecked.
	Revocation string `json:"revocation"`
	// Reason is the first failure's code (internal/verify Reason*); empty
	// when Verified.
	Reason string `json:"reason,omitempty"`
	// Problems says why Verified is false (or, with revocation unchecked
	// and accepted, what was not checked), one sentence each.
	Problems []string `json:"problems,omitempty"`
	// Credentials holds one entry per credential of the presentation, in
	// order, once their definitions are resolved.
	Credentials []CredentialVerdict `json:"credentials,omitempty"`
}

// CredentialVerdict is what was found of one credential.
type CredentialVerdict struct {
	CredDefID string `json:"credDefId"`
	IssuerID  string `json:"issuerId"`
	// Signature is "ok" or "failed" once the CL proof was checked, empty
	// when verification stopped before it.
	Signature string `json:"signature,omitempty"`
	// Revocation is "unchecked" when the credential had to prove
	// non-revocation, empty otherwise.
	Revocation string `json:"revocation,omitempty"`
}

// ErrUnknown is returned (wrapped) by a Resolver for an id no source
// knows.
var ErrUnknown = errors.New("unknown")

// Resolver finds schemas and credential definitions by id.
type Resolver interface {
	Schema(ctx context.Context, id string) (*Schema, error)
	CredentialDefinition(ctx context.Context, id string) (*CredentialDefinition, error)
}
