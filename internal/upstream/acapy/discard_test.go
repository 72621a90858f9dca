package acapy

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// TestDiscardRecord: a discarded create's invitation and request are both
// deleted at the agent, the invitation first (as when the owner cannot be
// stored), and its owner forgotten. A failed invitation delete still
// deletes the request, which leaves the invitation unanswerable, and is
// only logged (a 404 is success, deleteAgain): the agent's failures are
// not returned, since a request left at the agent is an orphan the sweeps
// delete and an invitation without its request answers nobody.
func TestDiscardRecord(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fault *openapitest.Fault // on the invitation's delete
		left  int                // invitations left at the agent
	}{
		{name: "deleted"},
		{name: "invitation delete refused", fault: &openapitest.Fault{Status: http.StatusInternalServerError, Body: "boom", ContentType: "text/plain"}, left: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{APIKey: "admin-key"})
			b := newBackend(t, fake, func(b *Backend) { b.APIKey = "admin-key" })
			ctx := context.Background()
			org := backend.Org{ID: "org-1"}
			res, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
			if err != nil {
				t.Fatal(err)
			}
			if n := len(fake.Records("")); n != 1 || fake.Invitations("") != 1 {
				t.Fatalf("%d records, %d invitations at the agent", n, fake.Invitations(""))
			}
			if tt.fault != nil {
				fake.Inject(openapitest.ACAPyDeleteInvitation, *tt.fault)
			}
			before := len(fake.Operations())
			if err := b.DiscardRecord(ctx, org, res); err != nil {
				t.Fatal(err)
			}
			if ops, want := fake.Operations()[before:], []string{openapitest.ACAPyDeleteInvitation, openapitest.ACAPyDeleteRecord}; !slices.Equal(ops, want) {
				t.Errorf("the agent was asked %v, want %v", ops, want)
			}
			if n := len(fake.Records("")); n != 0 {
				t.Errorf("the agent still holds %d records", n)
			}
			if n := fake.Invitations(""); n != tt.left {
				t.Errorf("the agent holds %d invitations, want %d", n, tt.left)
			}
			if _, err := b.RecordOrg(ctx, res.ProofRecord.ID); !errors.Is(err, backend.ErrNotFound) {
				t.Errorf("ownership still remembered: %v", err)
			}
		})
	}
}
