package idempotency

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/store"
)

// renewals drives the lease renewal of a store's claims by hand: each
// Begin gets its own tick channel (in order of the claims made), and the
// result of every renewal comes back on results.
type renewals struct {
	ticks   []chan time.Time
	stopped []chan struct{}
	results chan error
}

// manualRenewal makes s renew leases only when the test says so.
func manualRenewal(s *Store) *renewals {
	r := &renewals{results: make(chan error, 16)}
	s.tick = func(d time.Duration) (<-chan time.Time, func()) {
		if d != Lease/3 {
			panic("renewal every " + d.String())
		}
		ticks, stopped := make(chan time.Time), make(chan struct{})
		r.ticks, r.stopped = append(r.ticks, ticks), append(r.stopped, stopped)
		return ticks, func() { close(stopped) }
	}
	s.renewed = func(err error) { r.results <- err }
	return r
}

// renew makes claim i (0 for the first Begin's) renew its lease now and
// returns the result; the renewal loop is idle again when it returns.
func (r *renewals) renew(i int) error {
	r.ticks[i] <- time.Time{}
	return <-r.results
}

// begin claims key, failing the test otherwise, and makes sure the claim
// ends (and its renewal stops) with the test.
func begin(t *testing.T, s *Store, key, fp string) *Claim {
	t.Helper()
	done, c, err := s.Begin(context.Background(), "caller", "org", key, fp)
	if err != nil || c == nil {
		t.Fatalf("Begin %s: entry %+v, claim %v, error %v; want a claim", key, done, c, err)
	}
	t.Cleanup(func() { _ = c.Release(context.Background()) })
	return c
}

// The audit's scenario: a create still running after Lease (many
// recipients on a slow agent) keeps its key while it renews its lease, so
// a retry is told it is in progress instead of making the records and
// mails a second time; the running request's TTL for answers, even one
// shorter than the request, does not end its claim; and its answer, once
// stored, is kept for the TTL from then.
func TestRenewedClaimIsNotTakenOver(t *testing.T) {
	for _, tc := range []struct {
		name string
		ttl  time.Duration
	}{
		{"ttl longer than the request", time.Hour},
		{"ttl shorter than the request", time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, now := newStore(t)
			s.ttl = tc.ttl
			r := manualRenewal(s)
			ctx := context.Background()
			fp := Fingerprint([]byte("requestType=indy"), []byte(`{"emailId":["a@x","b@x","c@x"]}`))

			a := begin(t, s, "k", fp)
			// Six renewals: the request runs twice the Lease.
			for i := range 6 {
				*now = now.Add(Lease / 3)
				if err := r.renew(0); err != nil {
					t.Fatalf("renewal %d: %v", i+1, err)
				}
				if _, c, err := s.Begin(ctx, "caller", "org", "k", fp); !errors.Is(err, ErrInProgress) {
					t.Fatalf("retry %v after the start, while A runs and renews: claim %v, error %v; want ErrInProgress", time.Duration(i+1)*Lease/3, c, err)
				}
			}
			if n, err := s.Sweep(ctx); err != nil || n != 0 {
				t.Fatalf("the sweep deleted %d entries (%v); a live claim must stay", n, err)
			}

			if err := a.Complete(ctx, 201, []byte(`{"id":"A"}`)); err != nil {
				t.Fatalf("A's Complete: %v", err)
			}
			*now = now.Add(tc.ttl - time.Second)
			done, c, err := s.Begin(ctx, "caller", "org", "k", fp)
			if err != nil || c != nil || done == nil || string(done.Body) != `{"id":"A"}` {
				t.Fatalf("replay within the TTL after completion: %+v %v %v", done, c, err)
			}
		})
	}
}

// A claim whose holder died (no more renewals) is taken over once its
// lease runs out, not before.
func TestDeadClaimIsTakenOverAfterLease(t *testing.T) {
	s, now := newStore(t)
	manualRenewal(s)
	ctx := context.Background()
	fp := Fingerprint([]byte("x"))
	begin(t, s, "k", fp)

	*now = now.Add(Lease - time.Second)
	if _, c, err := s.Begin(ctx, "caller", "org", "k", fp); !errors.Is(err, ErrInProgress) {
		t.Fatalf("within the lease: claim %v, error %v; want ErrInProgress", c, err)
	}
	*now = now.Add(time.Second)
	begin(t, s, "k", fp)
}

// A request whose claim was taken over (it stopped renewing for a whole
// Lease) must not touch its successor's entry: its Release must not free
// the key for a third request, nor its Complete replace the successor's
// claim with its own answer. Each gets ErrClaimLost to log, and its
// renewal stops at the next tick.
func TestLostClaimLeavesTheNewOwnersEntry(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(*Claim) error
	}{
		{"release", func(c *Claim) error { return c.Release(context.Background()) }},
		{"complete", func(c *Claim) error { return c.Complete(context.Background(), 201, []byte(`{"id":"A"}`)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, now := newStore(t)
			r := manualRenewal(s)
			ctx := context.Background()
			fp := Fingerprint([]byte("x"))
			a := begin(t, s, "k", fp)
			*now = now.Add(Lease + time.Second)
			b := begin(t, s, "k", fp)

			// A's renewal loop finds the key B's and stops.
			if err := r.renew(0); !errors.Is(err, ErrClaimLost) {
				t.Fatalf("A's renewal after the takeover: %v, want ErrClaimLost", err)
			}
			<-r.stopped[0]

			if err := tc.end(a); !errors.Is(err, ErrClaimLost) {
				t.Fatalf("A's end: %v, want ErrClaimLost", err)
			}
			if _, c, err := s.Begin(ctx, "caller", "org", "k", fp); !errors.Is(err, ErrInProgress) {
				t.Fatalf("a third request while B runs: claim %v, error %v; want ErrInProgress", c, err)
			}
			if err := r.renew(1); err != nil {
				t.Fatalf("B's renewal: %v", err)
			}
			if err := b.Complete(ctx, 201, []byte(`{"id":"B"}`)); err != nil {
				t.Fatalf("B's Complete: %v", err)
			}
			done, _, err := s.Begin(ctx, "caller", "org", "k", fp)
			if err != nil || done == nil || string(done.Body) != `{"id":"B"}` {
				t.Fatalf("replay: %+v %v; want B's answer", done, err)
			}
		})
	}
}

// Complete and Release stop the renewal (its loop has returned when they
// do), and a claim ends once: a second Complete or Release writes nothing.
func TestClaimEndsOnce(t *testing.T) {
	for _, tc := range []struct {
		name        string
		end         func(*Claim) error
		wantReplay  bool
		wantClaimed bool
	}{
		{"complete", func(c *Claim) error { return c.Complete(context.Background(), 201, []byte(`{}`)) }, true, false},
		{"release", func(c *Claim) error { return c.Release(context.Background()) }, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newStore(t)
			r := manualRenewal(s)
			ctx := context.Background()
			a := begin(t, s, "k", "fp")
			if err := tc.end(a); err != nil {
				t.Fatal(err)
			}
			select {
			case <-r.stopped[0]:
			default:
				t.Fatal("the renewal still runs after the claim ended")
			}
			if err := a.Release(ctx); !errors.Is(err, ErrClaimLost) {
				t.Fatalf("Release after the end: %v, want ErrClaimLost", err)
			}
			if err := a.Complete(ctx, 500, nil); !errors.Is(err, ErrClaimLost) {
				t.Fatalf("Complete after the end: %v, want ErrClaimLost", err)
			}
			done, c, err := s.Begin(ctx, "caller", "org", "k", "fp")
			if err != nil || (done != nil) != tc.wantReplay || (c != nil) != tc.wantClaimed {
				t.Fatalf("after the end: %+v %v %v", done, c, err)
			}
			if c != nil {
				_ = c.Release(ctx)
			}
		})
	}
}

// Entries are plain JSON in the storage: a claim and its renewed lease
// hold across a restart (another Store over the same storage), and
// entries written before claims had tokens and leases are still read as
// they were: an answer replays, a claim ends at StartedAt plus Lease.
func TestEntriesSurviveARestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	open := func() *Store {
		s := New(store.New(&certmagic.FileStorage{Path: dir}, Namespace), time.Hour)
		s.now = func() time.Time { return now }
		return s
	}
	s1 := open()
	r := manualRenewal(s1)
	begin(t, s1, "k", "fp")
	now = now.Add(Lease - time.Second)
	if err := r.renew(0); err != nil {
		t.Fatal(err)
	}
	now = now.Add(Lease - time.Second)
	if _, c, err := open().Begin(ctx, "caller", "org", "k", "fp"); !errors.Is(err, ErrInProgress) {
		t.Fatalf("after a restart, within the renewed lease: claim %v, error %v; want ErrInProgress", c, err)
	}
	now = now.Add(time.Second)
	begin(t, open(), "k", "fp")

	// Entries as written before tokens and leases.
	write := func(key string, e map[string]any) {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "proofgate", Namespace, name("caller", "org", key)+".json")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := open()
	write("old-claim", map[string]any{"fingerprint": "fp", "done": false, "startedAt": now, "expiresAt": now.Add(time.Hour)})
	write("old-answer", map[string]any{"fingerprint": "fp", "done": true, "startedAt": now, "expiresAt": now.Add(time.Hour), "status": 201, "body": []byte(`{"id":"old"}`)})
	if _, _, err := s.Begin(ctx, "caller", "org", "old-claim", "fp"); !errors.Is(err, ErrInProgress) {
		t.Fatalf("an old claim within its lease: %v, want ErrInProgress", err)
	}
	if done, _, err := s.Begin(ctx, "caller", "org", "old-answer", "fp"); err != nil || done == nil || string(done.Body) != `{"id":"old"}` {
		t.Fatalf("an old answer: %+v %v", done, err)
	}
	now = now.Add(Lease)
	begin(t, s, "old-claim", "fp")
}
