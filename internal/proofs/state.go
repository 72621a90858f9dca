package proofs

import "github.com/proofgate/proofgate/internal/backend"

// transitions lists, for each verifier state (RFC 0454 / Credo names), the
// states a record may move to. done and abandoned are terminal. A
// problem-report moves any live exchange to abandoned (RFC 0454); only a
// received presentation can be accepted (done).
var transitions = map[string][]string{
	backend.StateRequestSent:          {backend.StatePresentationReceived, backend.StateAbandoned},
	backend.StatePresentationReceived: {backend.StateDone, backend.StateAbandoned},
	backend.StateDone:                 nil,
	backend.StateAbandoned:            nil,
}

// CheckTransition returns nil when a record in state from may move to to,
// and a *backend.ConflictError naming from otherwise (HTTP 409).
func CheckTransition(from, to string) error {
	for _, s := range transitions[from] {
		if s == to {
			return nil
		}
	}
	return &backend.ConflictError{State: from}
}

// Terminal reports whether no transition leaves state.
func Terminal(state string) bool {
	next, known := transitions[state]
	return known && len(next) == 0
}
