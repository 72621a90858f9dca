package local

import (
	"context"
	"errors"
	"testing"

	"github.com/proofgate/proofgate/handlers"
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/proofs"
)

// The module's long invitation URLs ask the local verifier about their
// records through handlers.InvitationStater (invitation_links.go).
var _ handlers.InvitationStater = (*Local)(nil)

// TestInvitationState: the local verifier tells the state of the record
// behind one of its invitations and hands back the invitation the record
// holds, for the page to show only that one; ids no record of its has are
// backend.ErrNotFound.
func TestInvitationState(t *testing.T) {
	l, _ := provision(t, `{"public_url":"https://verifier.example.com","label":"Acme & Sons","storage":"STORAGE"}`)
	ctx := context.Background()
	res, err := l.SendOutOfBandRequest(ctx, backend.Org{ID: "org-1"}, peOOB())
	if err != nil {
		t.Fatal(err)
	}
	rid, _ := proofs.ParseID(res.ProofRecord.ID)
	invID := proofs.InvitationID(rid).String()
	state, inv, err := l.InvitationState(ctx, invID)
	stored, _, _ := l.Invitation(ctx, res.ProofRecord.ID)
	if err != nil || state != backend.StateRequestSent || string(inv) != string(stored) {
		t.Fatalf("InvitationState = %q, %s, %v; want request-sent, %s", state, inv, err, stored)
	}
	if _, err := l.Service().Abandon(ctx, res.ProofRecord.ID, "closed"); err != nil {
		t.Fatal(err)
	}
	if state, _, err := l.InvitationState(ctx, invID); err != nil || state != backend.StateAbandoned {
		t.Fatalf("once closed: %q, %v", state, err)
	}
	for _, id := range []string{"", "not an id", res.ProofRecord.ID, "0b6b1c9a-2d3e-4f50-8a1b-2c3d4e5f6a7b"} {
		if _, _, err := l.InvitationState(ctx, id); !errors.Is(err, backend.ErrNotFound) {
			t.Errorf("InvitationState(%q): %v, want ErrNotFound", id, err)
		}
	}
}
