package local

import (
	"fmt"

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
	return verify.NewSet(pe), nil
}
