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
// acted is recorded as an orphan; the sweep finds a known thread's record
// at the agent, keeps it while it is open, and forgets it once it ended.
// A create the agent refused leaves no orphan.
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

	t.Run("record not readable: orphan with thread, forgotten once ended", func(t *testing.T) {
		fake := openapitest.NewCredo(t, opts)
		b := newBackend(t, fake, opts, nil)
		fake.Inject("GetAllProofs", openapitest.Fault{Status: 500, Body: `{"message":"x"}`})
		if _, err := b.SendOutOfBandRequest(ctx, org, indyRequest()); err == nil {
			t.Fatal("create succeeded, want the read-back failure")
		}
		recs := fake.Records("tenant-a")
		if len(recs) != 1 {
			t.Fatalf("agent holds %d records", len(recs))
		}
		left, err := b.orphans.Sweep(ctx, b.resolveOrphan)
		if err != nil || len(left) != 1 {
			t.Fatalf("orphans %+v, %v; want one", left, err)
		}
		if o := left[0]; o.ThreadID != recs[0]["threadId"] || o.ProofRecordID != recs[0]["id"] || o.State != "request-sent" || o.Reason != "record not readable" {
			t.Errorf("orphan %+v, agent record %v", o, recs[0])
		}
		fake.SetState("tenant-a", recs[0]["id"].(string), "abandoned")
		if left, err := b.orphans.Sweep(ctx, b.resolveOrphan); err != nil || len(left) != 0 {
			t.Fatalf("after the record ended: %+v, %v; want none", left, err)
		}
	})

	t.Run("owner not stored: orphan with thread, forgotten once ended", func(t *testing.T) {
		fake := openapitest.NewCredo(t, opts)
		b := newBackend(t, fake, opts, func(b *Backend) {
			b.storage = ownerWritesFail{&certmagic.FileStorage{Path: t.TempDir()}}
		})
		_, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
		if !errors.Is(err, backend.ErrUnavailable) {
			t.Fatalf("create: %v; want ErrUnavailable (no durable owner)", err)
		}
		recs := fake.Records("tenant-a")
		if len(recs) != 1 {
			t.Fatalf("agent holds %d records", len(recs))
		}
		left, err := b.orphans.Sweep(ctx, b.resolveOrphan)
		if err != nil || len(left) != 1 {
			t.Fatalf("orphans %+v, %v; want the agent's record %v", left, err, recs[0]["id"])
		}
		if o := left[0]; o.ThreadID != recs[0]["threadId"] || o.ProofRecordID != recs[0]["id"] || o.Reason != "owner not stored" || o.OrgID != "org-a" || o.Tenant != "tenant-a" {
			t.Errorf("orphan %+v, agent record %v", o, recs[0])
		}
		fake.SetState("tenant-a", recs[0]["id"].(string), "abandoned")
		if left, err := b.orphans.Sweep(ctx, b.resolveOrphan); err != nil || len(left) != 0 {
			t.Fatalf("after the record ended: %+v, %v; want none", left, err)
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
