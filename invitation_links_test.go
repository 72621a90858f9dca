package proofgate

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
)

// stater answers every invitation the same way.
type stater struct {
	state string
	err   error
}

func (s stater) InvitationState(context.Context, string) (string, json.RawMessage, error) {
	return s.state, json.RawMessage(`{}`), s.err
}

// anyLocal asks every local verifier: one that fails does not hide
// another that holds the invitation, and its failure is the answer only
// when none does.
func TestAnyLocal(t *testing.T) {
	down := stater{err: errors.Join(backend.ErrUnavailable, errors.New("disk"))}
	missing := stater{err: backend.ErrNotFound}
	holds := stater{state: backend.StateRequestSent}
	for _, tc := range []struct {
		name  string
		a     anyLocal
		state string
		err   error
	}{
		{"one holds it after one fails", anyLocal{down, holds}, backend.StateRequestSent, nil},
		{"one holds it after one lacks it", anyLocal{missing, holds}, backend.StateRequestSent, nil},
		{"none holds it, one failed", anyLocal{missing, down}, "", backend.ErrUnavailable},
		{"none holds it", anyLocal{missing, missing}, "", backend.ErrNotFound},
	} {
		state, _, err := tc.a.InvitationState(context.Background(), "x")
		if state != tc.state || (tc.err == nil) != (err == nil) || (tc.err != nil && !errors.Is(err, tc.err)) {
			t.Errorf("%s: %q, %v; want %q, %v", tc.name, state, err, tc.state, tc.err)
		}
	}
}
