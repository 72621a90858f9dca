package local

import (
	"fmt"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/anoncreds"
	"github.com/proofgate/proofgate/internal/anoncreds/registry"
	"github.com/proofgate/proofgate/internal/secret"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/w3c"
)

// verifiers builds the cryptographic verifiers of the record pipeline,
// one per presentation attachment format.
func (l *Local) verifiers(logger *zap.Logger) (verify.Set, error) {
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
	warnLiteralRegistrySecrets(logger, l.AnonCredsRegistry)
	anonRegistry, err := l.AnonCredsRegistry.Build(caddy.NewReplacer())
	if err != nil {
		return nil, err
	}
	indy := anoncreds.FormatVerifier{V: &anoncreds.Verifier{
		Resolver:                  anonRegistry.WithLogger(logger),
		AcceptUncheckedRevocation: l.AnonCredsRegistry.AcceptUncheckedRevocation(),
	}}
	return verify.NewSet(pe, indy), nil
}

// warnLiteralRegistrySecrets warns about each credential of an
// anoncreds_registry source written in plain text in the config, as for
// every other secret: its token, API key, and the values of its headers
// that carry credentials.
func warnLiteralRegistrySecrets(logger *zap.Logger, c *registry.Config) {
	for i, s := range c.Sources {
		name := fmt.Sprintf("anoncreds_registry source %d ", i+1)
		secret.WarnLiteral(logger, name+"token", s.Token)
		secret.WarnLiteral(logger, name+"api_key", s.APIKey)
		for h, v := range s.Header {
			if credentialHeader(h) {
				secret.WarnLiteral(logger, name+"header "+h, v)
			}
		}
	}
}

// credentialHeader reports whether a header's name says it carries a
// credential.
func credentialHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"auth", "key", "token", "secret", "cookie", "password"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
