package proofs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
)

// TestInvitationState: a record's invitation, found by its @id, reads as
// the state its page shows and the invitation the record holds; unknown
// and malformed ids are backend.ErrNotFound.
func TestInvitationState(t *testing.T) {
	ctx := context.Background()
	s := newTestService(t, fileStorage(t))
	res, err := s.Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	rid, _ := ParseID(res.ProofRecord.ID)
	invID := InvitationID(rid).String()
	state, inv, err := s.InvitationState(ctx, invID)
	if err != nil || state != backend.StateRequestSent || !jsonEqualRaw(inv, res.Invitation) {
		t.Fatalf("InvitationState = %q, %s, %v", state, inv, err)
	}
	if _, err := s.Abandon(ctx, res.ProofRecord.ID, "closed"); err != nil {
		t.Fatal(err)
	}
	if state, _, err := s.InvitationState(ctx, invID); err != nil || state != backend.StateAbandoned {
		t.Fatalf("once closed: %q, %v", state, err)
	}
	for _, id := range []string{"", "x", res.ProofRecord.ID + "0", InvitationID(uuid.New()).String(), res.ProofRecord.ID} {
		if _, _, err := s.InvitationState(ctx, id); !errors.Is(err, backend.ErrNotFound) {
			t.Errorf("InvitationState(%q): %v, want ErrNotFound", id, err)
		}
	}
}

// TestInvitationExpiredReadsAbandoned: once an invitation is past
// InvitationTTL, before the sweeper abandons its record, its page state
// and its short URL's state are abandoned, as a presentation would find
// it (refuseExpired); the record itself is not changed by reading. An
// answered record keeps its state past the TTL.
func TestInvitationExpiredReadsAbandoned(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	s, err := New(fileStorage(t), Config{PublicURL: testPublicURL, Endpoint: testEndpoint,
		InvitationTTL: time.Hour, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	req := indyRequest()
	req.IsShortenURL, req.ShortURLExpiresAt = true, now.Add(24*time.Hour)
	waiting, err := s.Create(ctx, testOrg, req)
	if err != nil {
		t.Fatal(err)
	}
	answered, err := s.Create(ctx, testOrg, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.MarkPresentationReceived(ctx, answered.ProofRecord.ID, Presentation{}); err != nil {
		t.Fatal(err)
	}
	states := func(res backend.OOBResult) (page, short string) {
		t.Helper()
		rid, _ := ParseID(res.ProofRecord.ID)
		page, _, err := s.InvitationState(ctx, InvitationID(rid).String())
		if err != nil {
			t.Fatal(err)
		}
		sh, err := s.ResolveShortURL(ctx, res.ShortURLID)
		if err != nil {
			t.Fatal(err)
		}
		return page, sh.State
	}

	now = now.Add(time.Hour - time.Millisecond)
	if page, short := states(waiting); page != backend.StateRequestSent || short != backend.StateRequestSent {
		t.Fatalf("before the TTL: page %q, short URL %q", page, short)
	}
	now = now.Add(time.Millisecond)
	if page, short := states(waiting); page != backend.StateAbandoned || short != backend.StateAbandoned {
		t.Fatalf("at the TTL: page %q, short URL %q", page, short)
	}
	if page, short := states(answered); page != backend.StatePresentationReceived || short != backend.StatePresentationReceived {
		t.Fatalf("answered, past the TTL: page %q, short URL %q", page, short)
	}
	if rec, err := s.LoadRecord(ctx, waiting.ProofRecord.ID); err != nil || rec.State != backend.StateRequestSent {
		t.Fatalf("reading changed the record: %+v, %v", rec, err)
	}
}
