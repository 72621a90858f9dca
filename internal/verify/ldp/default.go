package ldp

import (
	"sync"

	"github.com/proofgate/proofgate/internal/jsonld"
)

var (
	defaultOnce  sync.Once
	defaultCanon *jsonld.Canonicalizer
)

// DefaultCanonicalizer canonicalizes with the pinned contexts only and the
// default limits: what a Signer uses when its Canon is nil (test wallets,
// tools), and what the local verifier uses without jsonld_contexts.
func DefaultCanonicalizer() *jsonld.Canonicalizer {
	defaultOnce.Do(func() {
		l, err := jsonld.NewLoader("")
		if err != nil {
			panic("ldp: pinned contexts: " + err.Error())
		}
		defaultCanon = jsonld.NewCanonicalizer(l, jsonld.Limits{})
	})
	return defaultCanon
}
