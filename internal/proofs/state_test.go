package proofs

import (
	"errors"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
)

func TestCheckTransition(t *testing.T) {
	allowed := map[[2]string]bool{
		{backend.StateRequestSent, backend.StatePresentationReceived}: true,
		{backend.StateRequestSent, backend.StateAbandoned}:            true,
		{backend.StatePresentationReceived, backend.StateDone}:        true,
		{backend.StatePresentationReceived, backend.StateAbandoned}:   true,
	}
	states := []string{
		backend.StateRequestSent, backend.StateProposalReceived, backend.StatePresentationReceived,
		backend.StateDone, backend.StateAbandoned, "", "bogus",
	}
	for _, from := range states {
		for _, to := range states {
			err := CheckTransition(from, to)
			if allowed[[2]string{from, to}] {
				if err != nil {
					t.Errorf("%q → %q: %v, want allowed", from, to, err)
				}
				continue
			}
			var ce *backend.ConflictError
			if !errors.As(err, &ce) || ce.State != from {
				t.Errorf("%q → %q: %v, want ConflictError{%q}", from, to, err, from)
			}
		}
	}
	for state, want := range map[string]bool{
		backend.StateDone: true, backend.StateAbandoned: true,
		backend.StateRequestSent: false, backend.StatePresentationReceived: false, "bogus": false,
	} {
		if Terminal(state) != want {
			t.Errorf("Terminal(%q) = %v", state, !want)
		}
	}
}
