package credo

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// TestOrphans: a create whose answer is lost after the agent may have
// acted is recorded as an orphan, and so is one whose invitation could
// not be withdrawn; the sweep finds a known thread's record at the agent,
// keeps it while it is open, and forgets it once it ended. A create the
// agent refused leaves no orphan.
func TestOrphans(t *testing.T) {
	ctx := context.Background()
	opts := openapitest.CredoOptions{Tenants: []string{"tenant-a"}}
	org := backend.Org{ID: "org-a", Tenant: "tenant-a"}

	t.Run("timeout: orphan without thread, kept and listed", func(t *testing.T) {
		fake := openapitest.NewCredo(t, opts)
		b := newBackend(t, fake, opts, func(b *Backend) { b.Timeout = caddy.Duration(300 * time.Millisecond) })
		fake.Inject("CreateRequest", openapitest.Fault{Delay: time.Second})
		if _, err := b.SendOutOfBandRequest(ctx, org, indyRequest()); err == nil {
			t.Fatal("create succeeded, want a timeout")
		}
		left, err := b.orphans.Sweep(ctx, b.resolveOrphan)
		if err != nil || len(left) != 1 {
			t.Fatalf("orphans %+v, %v; want one", left, err)
		}
		o := left[0]
		if o.ThreadID != "" || o.Reason != "timeout" || o.OrgID != "org-a" || o.Tenant != "tenant-a" || o.Since == "" || o.Until < o.Since {
			t.Errorf("orphan %+v", o)
		}
	})

	// A create whose record cannot be read back, or whose owner cannot be
	// stored, withdraws its invitation (nobody can answer the request
	// then: no orphan); only when that fails too is it an orphan.
	for _, tc := range []struct {
		name, reason string
		fail         func(fake *openapitest.Credo, b *Backend)
	}{
		{"record not readable", "record not readable", func(fake *openapitest.Credo, _ *Backend) {
			fake.Inject("GetAllProofs", openapitest.Fault{Status: 500, Body: `{"message":"x"}`})
		}},
		{"owner not stored", "owner not stored", func(_ *openapitest.Credo, b *Backend) {
			b.storage = ownerWritesFail{b.storage.(*certmagic.FileStorage)}
		}},
	} {
		t.Run(tc.name+": invitation withdrawn, no orphan", func(t *testing.T) {
			fake := openapitest.NewCredo(t, opts)
			b := newBackend(t, fake, opts, func(b *Backend) { tc.fail(fake, b) })
			if _, err := b.SendOutOfBandRequest(ctx, org, indyRequest()); err == nil {
				t.Fatal("create succeeded, want it to fail")
			}
			if len(fake.Records("tenant-a")) != 1 {
				t.Fatalf("agent holds %d records", len(fake.Records("tenant-a")))
			}
			left, err := b.orphans.Sweep(ctx, b.resolveOrphan)
			if err != nil || len(left) != 0 || len(fake.Invitations("tenant-a")) != 0 {
				t.Fatalf("orphans %+v (%v), invitations left %v; want neither", left, err, fake.Invitations("tenant-a"))
			}
		})
		// The withdrawal fails at the create and again at the first sweep
		// (the agent's out-of-band delete answers 500 twice): the orphan
		// names the thread and the invitation, and the next sweep
		// withdraws it; or, had its record ended first, forgets it.
		for _, ended := range []bool{false, true} {
			name := tc.name + ", invitation not withdrawn: orphan, withdrawn by a later sweep"
			if ended {
				name = tc.name + ", invitation not withdrawn: orphan, forgotten once its record ended"
			}
			t.Run(name, func(t *testing.T) {
				fake := openapitest.NewCredo(t, opts)
				b := newBackend(t, fake, opts, func(b *Backend) { tc.fail(fake, b) })
				fake.Inject("DeleteOutOfBandRecord", openapitest.Fault{Status: 500, Body: `{"message":"x"}`})
				fake.Inject("DeleteOutOfBandRecord", openapitest.Fault{Status: 500, Body: `{"message":"x"}`})
				res, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
				if err == nil {
					t.Fatal("create succeeded, want it to fail")
				}
				recs := fake.Records("tenant-a")
				invs := fake.Invitations("tenant-a")
				if len(recs) != 1 || len(invs) != 1 {
					t.Fatalf("agent holds %d records and %d invitations, want one of each (%+v)", len(recs), len(invs), res)
				}
				left, err := b.orphans.Sweep(ctx, b.resolveOrphan)
				if err != nil || len(left) != 1 || len(fake.Invitations("tenant-a")) != 1 {
					t.Fatalf("orphans %+v (%v), invitations %v; want one of each", left, err, fake.Invitations("tenant-a"))
				}
				if o := left[0]; o.ThreadID != recs[0]["threadId"] || o.ProofRecordID != recs[0]["id"] || o.State != "request-sent" ||
					o.InvitationID == "" || o.Reason != tc.reason || o.OrgID != "org-a" || o.Tenant != "tenant-a" {
					t.Errorf("orphan %+v, agent record %v", o, recs[0])
				}
				if ended {
					fake.SetState("tenant-a", recs[0]["id"].(string), "abandoned")
				}
				if left, err := b.orphans.Sweep(ctx, b.resolveOrphan); err != nil || len(left) != 0 {
					t.Fatalf("second sweep: %+v, %v; want none", left, err)
				}
				if got, want := len(fake.Invitations("tenant-a")), map[bool]int{false: 0, true: 1}[ended]; got != want {
					t.Errorf("%d invitations at the agent after the second sweep, want %d", got, want)
				}
				if len(fake.Records("tenant-a")) != 1 {
					t.Errorf("the agent's record went away: credo-controller cannot delete it")
				}
			})
		}
	}

	t.Run("legacy tenant: orphan stays listed, no route withdraws it", func(t *testing.T) {
		opts := openapitest.CredoOptions{Legacy: true, Tenants: []string{"tenant-a"}}
		fake := openapitest.NewCredo(t, opts)
		b := newBackend(t, fake, opts, func(b *Backend) { b.storage = ownerWritesFail{b.storage.(*certmagic.FileStorage)} })
		if _, err := b.SendOutOfBandRequest(ctx, org, indyRequest()); err == nil {
			t.Fatal("create succeeded, want it to fail")
		}
		for sweep := 1; sweep <= 2; sweep++ {
			before := len(fake.Calls())
			left, err := b.orphans.Sweep(ctx, b.resolveOrphan)
			if err != nil || len(left) != 1 || left[0].InvitationID == "" || left[0].State != "request-sent" {
				t.Fatalf("sweep %d: orphans %+v, %v; want the one, with its invitation", sweep, left, err)
			}
			for _, c := range fake.Calls()[before:] {
				if c.Method == "DELETE" {
					t.Errorf("sweep %d called %s %s", sweep, c.Method, c.Path)
				}
			}
		}
	})

	t.Run("refused: no orphan", func(t *testing.T) {
		fake := openapitest.NewCredo(t, opts)
		b := newBackend(t, fake, opts, nil)
		fake.Inject("CreateRequest", openapitest.Fault{Status: 422, Body: `{"message":"Validation Failed"}`})
		if _, err := b.SendOutOfBandRequest(ctx, org, indyRequest()); err == nil {
			t.Fatal("create succeeded")
		}
		if left, _ := b.orphans.Sweep(ctx, b.resolveOrphan); len(left) != 0 {
			t.Errorf("orphans %+v after a refusal", left)
		}
	})
}

// ownerWritesFail is a storage whose owner-log writes fail (a full disk)
// while everything else, orphans included, is stored. It is not a
// *certmagic.FileStorage, so the owner log writes batch documents through
// Store.
type ownerWritesFail struct{ *certmagic.FileStorage }

func (s ownerWritesFail) Store(ctx context.Context, key string, v []byte) error {
	if strings.Contains(key, "upstream-records/log") {
		return errors.New("disk full")
	}
	return s.FileStorage.Store(ctx, key, v)
}
