package credo

import (
	"context"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// A caller that goes away after credo-controller took the create, before
// its answer: nobody gets the invitation, so the request the agent made
// has its invitation withdrawn (it cannot be answered), not left
// answerable. (Were the withdrawal to fail, it would be recorded as an
// orphan by its thread: TestOrphans.)
func TestCallerGoneDuringCreate(t *testing.T) {
	opts := openapitest.CredoOptions{Tenants: []string{"tenant-a"}}
	fake := openapitest.NewCredo(t, opts)
	ctx, cancel := context.WithCancel(context.Background())
	proxy := openapitest.CallerGoneProxy(t, fake.URL, "/create-request-oob", cancel)
	b := newBackend(t, fake, opts, func(b *Backend) { b.URL = proxy })
	org := backend.Org{ID: "org-a", Tenant: "tenant-a"}
	if _, err := b.SendOutOfBandRequest(ctx, org, indyRequest()); err == nil {
		t.Fatal("the create succeeded for a caller that went away")
	}
	if n := len(fake.Records("tenant-a")); n != 1 {
		t.Fatalf("the agent holds %d records, want 1", n)
	}
	if inv := fake.Invitations("tenant-a"); len(inv) != 0 {
		t.Fatalf("invitations left at the agent: %v", inv)
	}
	left, err := b.orphans.Sweep(context.Background(), b.resolveOrphan)
	if err != nil || len(left) != 0 {
		t.Fatalf("orphans recorded: %+v (%v), want none (the invitation is gone)", left, err)
	}
}

// A tenant's token fetch is shared by the callers that wait on it: the
// first caller's going away does not fail the others.
func TestSharedTokenFetchOutlivesItsFirstCaller(t *testing.T) {
	opts := openapitest.CredoOptions{Tenants: []string{"tenant-a"}}
	fake := openapitest.NewCredo(t, opts)
	b := newBackend(t, fake, opts, nil)
	org := backend.Org{ID: "org-1", Tenant: "tenant-a"}
	id := fake.AddRecord("tenant-a")
	fake.Inject("GetTenantToken", openapitest.Fault{Delay: 300 * time.Millisecond})

	ctxA, cancelA := context.WithCancel(context.Background())
	doneA := make(chan struct{})
	go func() { defer close(doneA); _, _ = b.GetProofRecord(ctxA, org, id) }()
	time.Sleep(50 * time.Millisecond) // A's fetch is in flight
	errB := make(chan error, 1)
	go func() { _, err := b.GetProofRecord(context.Background(), org, id); errB <- err }()
	time.Sleep(50 * time.Millisecond) // B waits on it
	cancelA()
	<-doneA
	if err := <-errB; err != nil {
		t.Fatalf("a caller failed because another went away: %v", err)
	}
}
