package idempotency

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/store"
)

func newStore(t *testing.T) (*Store, *time.Time) {
	t.Helper()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := New(store.New(&certmagic.FileStorage{Path: t.TempDir()}, Namespace), time.Hour)
	s.now = func() time.Time { return now }
	return s, &now
}

func TestParseKey(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   string
		err    string
	}{
		{nil, "", ""},
		{[]string{"abc-123"}, "abc-123", ""},
		{[]string{`"8e03978e-40d5-43e8-bc93-6894a57f9324"`}, "8e03978e-40d5-43e8-bc93-6894a57f9324", ""},
		{[]string{"a", "b"}, "", "once"},
		{[]string{""}, "", "empty"},
		{[]string{`""`}, "", "empty"},
		{[]string{"with space"}, "", "printable"},
		{[]string{"é"}, "", "printable"},
		{[]string{strings.Repeat("k", MaxKeyLength+1)}, "", "at most"},
	} {
		h := http.Header{}
		for _, v := range tc.values {
			h.Add("Idempotency-Key", v)
		}
		got, err := ParseKey(h)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "Idempotency-Key") {
				t.Errorf("%q: error %v, want one naming the header and %q", tc.values, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %q, %v; want %q", tc.values, got, err, tc.want)
		}
	}
}

func TestBeginClaimsReplaysAndRefuses(t *testing.T) {
	s, now := newStore(t)
	ctx := context.Background()
	fp := Fingerprint([]byte("q"), []byte("body"))

	done, claim, err := s.Begin(ctx, "alice", "org", "k", fp)
	if err != nil || done != nil || claim == nil {
		t.Fatalf("first Begin: %v %v %v", done, claim, err)
	}
	if _, _, err := s.Begin(ctx, "alice", "org", "k", fp); !errors.Is(err, ErrInProgress) {
		t.Fatalf("while running: %v, want ErrInProgress", err)
	}
	if _, _, err := s.Begin(ctx, "alice", "org", "k", Fingerprint([]byte("q"), []byte("other"))); !errors.Is(err, ErrMismatch) {
		t.Fatalf("other body: %v, want ErrMismatch", err)
	}
	// Scope: another caller or org is another key.
	if _, c, err := s.Begin(ctx, "bob", "org", "k", fp); err != nil || c == nil {
		t.Fatalf("another caller: %v", err)
	} else {
		t.Cleanup(func() { _ = c.Release(ctx) })
	}
	if _, c, err := s.Begin(ctx, "alice", "org2", "k", fp); err != nil || c == nil {
		t.Fatalf("another org: %v", err)
	} else {
		t.Cleanup(func() { _ = c.Release(ctx) })
	}

	if err := claim.Complete(ctx, 201, []byte(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	done, claim2, err := s.Begin(ctx, "alice", "org", "k", fp)
	if err != nil || claim2 != nil || done == nil || done.Status != 201 || string(done.Body) != `{"ok":true}` {
		t.Fatalf("replay: %+v %v %v", done, claim2, err)
	}

	// After the TTL the key is new again, and the sweeper's task removes
	// it, a bounded number looked at per pass.
	*now = now.Add(time.Hour + time.Second)
	task := s.SweepTask()
	removed := 0
	for range 3 {
		got, err := task.Run(ctx, *now, 1)
		if err != nil {
			t.Fatal(err)
		}
		removed += got["idempotency_keys"]
	}
	if removed != 3 {
		t.Fatalf("sweep task deleted %d, want 3", removed)
	}
	if _, c, err := s.Begin(ctx, "alice", "org", "k", fp); err != nil || c == nil {
		t.Fatalf("after expiry: %v", err)
	} else {
		_ = c.Release(ctx)
	}
}

func TestReleaseAndLease(t *testing.T) {
	s, now := newStore(t)
	ctx := context.Background()
	fp := Fingerprint([]byte("x"))
	_, claim, err := s.Begin(ctx, "p", "o", "k", fp)
	if err != nil {
		t.Fatal(err)
	}
	if err := claim.Release(ctx); err != nil {
		t.Fatal(err)
	}
	_, claim, err = s.Begin(ctx, "p", "o", "k", fp)
	if err != nil || claim == nil {
		t.Fatalf("after release: %v", err)
	}
	t.Cleanup(func() { _ = claim.Release(ctx) })
	// The claimer died (its lease was not renewed: the test's clock
	// moves, the renewal's ticker does not): after the lease the key may
	// be claimed again.
	*now = now.Add(Lease + time.Second)
	if _, c, err := s.Begin(ctx, "p", "o", "k", fp); err != nil || c == nil {
		t.Fatalf("after the lease: %v", err)
	} else {
		_ = c.Release(ctx)
	}
}

func TestFingerprintSeparatesParts(t *testing.T) {
	if Fingerprint([]byte("ab"), []byte("c")) == Fingerprint([]byte("a"), []byte("bc")) {
		t.Fatal("parts run together")
	}
}
