package proofs

import (
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// vp is a verifiable presentation answering peRequest: one credential for
// input descriptor wa_driver_license with a dateOfBirth (unsigned).
func vp(inv *wallet.Invitation) map[string]any {
	return wallet.UnsignedVP(inv, wallet.Submitted{
		DescriptorID: "wa_driver_license",
		Credential:   wallet.UnsignedCredential(map[string]any{"id": "did:example:holder", "dateOfBirth": "1990-01-01"}),
	})
}

// serviceOpt offers svc as the presentation's ~service, or none when nil.
func serviceOpt(svc map[string]any) wallet.PresentOptions {
	return wallet.PresentOptions{Service: svc, NoService: svc == nil}
}

// newTestAgent is an agent that may send to the loopback wallets.
func newTestAgent(t *testing.T) *Agent {
	t.Helper()
	a := NewAgent(newTestService(t, fileStorage(t)), AgentConfig{AllowPrivateEndpoints: true, SendTimeout: 5 * time.Second})
	t.Cleanup(a.Close)
	return a
}
