package local

import (
	"fmt"

	"github.com/caddyserver/caddy/v2"

	"github.com/proofgate/proofgate/internal/anoncreds"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/w3c"
)

// verifiers builds the cryptographic verifiers of the record pipeline,
// one per presentation attachment format.
func (l *Local) verifiers() (verify.Set, error) {
	pe, err := w3c.New(l.Options, w3c.Env{AllowPrivate: l.AllowPrivateEndpoints})
	if err != nil {
		return nil, fmt.Errorf("W3C verification: %v", err)
	}
	if l.AnonCredsRegistry == nil {
		// No registry, no credential definition to verify against: indy
		// presentations are judged structurally, as any format without a
		// verifier (isVerified stays unset).
		return verify.NewSet(pe), nil
	}
	anonRegistry, err := l.AnonCredsRegistry.Build(caddy.NewReplacer())
	if err != nil {
		return nil, err
	}
	indy := anoncreds.FormatVerifier{V: &anoncreds.Verifier{
		Resolver:                  anonRegistry,
		AcceptUncheckedRevocation: l.AnonCredsRegistry.AcceptUncheckedRevocation(),
	}}
	return verify.NewSet(pe, indy), nil
}
