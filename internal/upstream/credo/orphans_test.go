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
		for _, withdrawn := range []bool{true, false} {
			name := tc.name + ": invitation withdrawn, no orphan"
			if !withdrawn {
				name = tc.name + ", invitation not withdrawn: orphan with thread, forgotten once ended"
			}
			t.Run(name, func(t *testing.T) {
				fake := openapitest.NewCredo(t, opts)
				b := newBackend(t, fake, opts, func(b *Backend) { tc.fail(fake, b) })
				if !withdrawn {
					fake.Inject("DeleteOutOfBandRecord", openapitest.Fault{Status: 500, Body: `{"message":"x"}`})
				}
				if _, err := b.SendOutOfBandRequest(ctx, org, indyRequest()); err == nil {
					t.Fatal("create succeeded, want it to fail")
				}
				recs := fake.Records("tenant-a")
				if len(recs) != 1 {
					t.Fatalf("agent holds %d records", len(recs))
				}
				left, err := b.orphans.Sweep(ctx, b.resolveOrphan)
				if err != nil {
					t.Fatal(err)
				}
				if withdrawn {
					if len(left) != 0 || len(fake.Invitations("tenant-a")) != 0 {
						t.Fatalf("orphans %+v, invitations left %v; want neither", left, fake.Invitations("tenant-a"))
					}
					return
				}
				if len(left) != 1 || len(fake.Invitations("tenant-a")) != 1 {
					t.Fatalf("orphans %+v, invitations %v; want one of each", left, fake.Invitations("tenant-a"))
				}
				if o := left[0]; o.ThreadID != recs[0]["threadId"] || o.ProofRecordID != recs[0]["id"] || o.State != "request-sent" || o.Reason != tc.reason || o.OrgID != "org-a" || o.Tenant != "tenant-a" {
					t.Errorf("orphan %+v, agent record %v", o, recs[0])
				}
				fake.SetState("tenant-a", recs[0]["id"].(string), "abandoned")
				if left, err := b.orphans.Sweep(ctx, b.resolveOrphan); err != nil || len(left) != 0 {
					t.Fatalf("after the record ended: %+v, %v; want none", left, err)
				}
			})
		}
	}

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
