package proofs

import (
	"context"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
	"github.com/proofgate/proofgate/internal/verify"
)

func TestContentApproved(t *testing.T) {
	yes, no := true, false
	structural := map[string]any{"verification": map[string]any{"answersRequest": true, "signaturesVerified": false}}
	tests := []struct {
		name      string
		verifiers bool
		rec       backend.ProofRecord
		want      bool
	}{
		{"verified", true, backend.ProofRecord{IsVerified: &yes}, true},
		{"verification failed", true, backend.ProofRecord{IsVerified: &no}, false},
		{"no verdict while verifiers exist", true, backend.ProofRecord{Metadata: structural}, false},
		{"structural check passed, no verifiers", false, backend.ProofRecord{Metadata: structural}, true},
		{"nothing known", false, backend.ProofRecord{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Service{}
			if tt.verifiers {
				s.cfg.Verifiers = verify.Set{"x": nil}
			}
			if got := s.contentApproved(tt.rec); got != tt.want {
				t.Fatalf("contentApproved = %v, want %v", got, tt.want)
			}
		})
	}
}

// always and contentApproved (structural check, no verifier for indy)
// accept on arrival and send the ack; never and unset wait.
func TestAutoAcceptOnArrival(t *testing.T) {
	for _, tt := range []struct{ mode, want string }{
		{AutoAcceptAlways, backend.StateDone},
		{AutoAcceptContentApproved, backend.StateDone},
		{AutoAcceptNever, backend.StatePresentationReceived},
		{"", backend.StatePresentationReceived},
	} {
		t.Run("mode "+tt.mode, func(t *testing.T) {
			ctx := context.Background()
			a := newTestAgent(t)
			w := wallet.NewT(t, wallet.Options{})
			req := indyRequest()
			req.AutoAcceptProof = tt.mode
			res, err := a.Service().Create(ctx, testOrg, req)
			if err != nil {
				t.Fatal(err)
			}
			inv := w.ReadInvitation(res.InvitationURL)
			got, err := a.Receive(ctx, w.Present(inv, wallet.SampleIndyProof(), false))
			if err != nil || got.State != tt.want {
				t.Fatalf("Receive = %+v, %v", got, err)
			}
			if tt.want != backend.StateDone {
				w.None()
				return
			}
			if ack := w.Next(); ack.Type() != TypeAckV2 {
				t.Fatalf("got %s", ack.Raw)
			}
			waitAckMetadata(t, a.Service(), res.ProofRecord.ID, true)
		})
	}
}
