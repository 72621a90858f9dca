package acapy

import (
	"context"
	"path"
	"testing"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// TestUndeletedRequestIsAnOrphan: a create that fails after ACA-Py made
// its presentation request deletes the request again; when that DELETE
// fails too, the request is recorded as an orphan (it was only logged:
// no client has its invitation, but a prover who saw it could answer it),
// and the next sweep deletes it and forgets the orphan.
func TestUndeletedRequestIsAnOrphan(t *testing.T) {
	ctx := context.Background()
	org := backend.Org{ID: "org-1"}
	fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{APIKey: "admin-key"})
	b := newBackend(t, fake, func(b *Backend) {
		b.APIKey = "admin-key"
		b.storage = &certmagic.FileStorage{Path: t.TempDir()}
	})
	fake.Inject(openapitest.ACAPyCreateInvitation, openapitest.Fault{Status: 500, Body: "500: x", ContentType: "text/plain"})
	fake.Inject(openapitest.ACAPyDeleteRecord, openapitest.Fault{Status: 503, Body: "503: busy", ContentType: "text/plain"})
	if _, err := b.SendOutOfBandRequest(ctx, org, indyRequest()); err == nil {
		t.Fatal("the create must fail with its invitation")
	}
	var made string
	for _, c := range fake.Calls() {
		if c.Operation == openapitest.ACAPyDeleteRecord {
			made = path.Base(c.Path)
		}
	}
	if made == "" {
		t.Fatal("no DELETE was tried")
	}
	list, err := b.orphans.List(ctx)
	if err != nil || len(list) != 1 || list[0].ProofRecordID != made || list[0].OrgID != org.ID {
		t.Fatalf("orphans %+v (%v), want the request %s of %s", list, err, made, org.ID)
	}

	left, err := b.orphans.Sweep(ctx, b.resolveOrphan)
	if err != nil || len(left) != 0 {
		t.Fatalf("after a sweep with the agent back: %+v (%v), want none", left, err)
	}
	deletes := 0
	for _, c := range fake.Calls() {
		if c.Operation == openapitest.ACAPyDeleteRecord && path.Base(c.Path) == made {
			deletes++
		}
	}
	if deletes != 2 {
		t.Fatalf("%d DELETEs of %s, want the failed one and the sweep's", deletes, made)
	}
}
