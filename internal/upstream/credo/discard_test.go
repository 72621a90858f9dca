package credo

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// TestDiscardRecord: a discarded create's invitation loses its
// out-of-band record at the agent, in the org's own wallet (another
// tenant's invitation stays), so the request can no longer be answered,
// and its owner is forgotten.
func TestDiscardRecord(t *testing.T) {
	for _, l := range []struct {
		name string
		opts openapitest.CredoOptions
	}{
		{"default/dedicated", openapitest.CredoOptions{}},
		{"default/multi-tenant", openapitest.CredoOptions{Tenants: []string{"tenant-a", "tenant-b"}}},
		{"legacy/dedicated", openapitest.CredoOptions{Legacy: true}},
	} {
		t.Run(l.name, func(t *testing.T) {
			fake := openapitest.NewCredo(t, l.opts)
			b := newBackend(t, fake, l.opts, nil)
			ctx := context.Background()
			org, other := backend.Org{ID: "org-1"}, backend.Org{ID: "org-2"}
			if len(l.opts.Tenants) > 0 {
				org.Tenant, other.Tenant = "tenant-b", "tenant-a"
			}
			kept, err := b.SendOutOfBandRequest(ctx, other, peRequest())
			if err != nil {
				t.Fatal(err)
			}
			res, err := b.SendOutOfBandRequest(ctx, org, peRequest())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(fake.Invitations(org.Tenant), res.OutOfBandID) {
				t.Fatalf("the agent holds invitations %v, not the create's %s", fake.Invitations(org.Tenant), res.OutOfBandID)
			}

			if err := b.DiscardRecord(ctx, org, res); err != nil {
				t.Fatal(err)
			}
			if slices.Contains(fake.Invitations(org.Tenant), res.OutOfBandID) {
				t.Errorf("the agent still holds the discarded invitation %s", res.OutOfBandID)
			}
			if fake.Present(org.Tenant, res.ProofRecord.ID, openapitest.LDPPresentation("x", "y", "z", map[string]any{})) {
				t.Error("the discarded request could still be answered")
			}
			if _, err := b.RecordOrg(ctx, res.ProofRecord.ID); !errors.Is(err, backend.ErrNotFound) {
				t.Errorf("the discarded record's owner is still remembered: %v", err)
			}
			if !slices.Contains(fake.Invitations(other.Tenant), kept.OutOfBandID) {
				t.Errorf("the other create's invitation went too: the agent holds %v", fake.Invitations(other.Tenant))
			}
			if got, err := b.RecordOrg(ctx, kept.ProofRecord.ID); err != nil || got != other.ID {
				t.Errorf("the other record's owner: %q, %v", got, err)
			}
		})
	}
}

// TestDiscardRecordAgentFails: what the agent answers the lookup and the
// delete decides what DiscardRecord returns; the owner is forgotten in
// every case (the create failed: its record is nobody's to accept through
// proofgate, whether or not the agent could delete the invitation).
func TestDiscardRecordAgentFails(t *testing.T) {
	for _, tt := range []struct {
		name    string
		op      string
		fault   openapitest.Fault
		wantErr bool
	}{
		{"delete refused", "DeleteOutOfBandRecord", openapitest.Fault{Status: http.StatusInternalServerError, Body: `{"message":"CredoError: boom"}`}, true},
		{"lookup refused", "GetAllOutOfBandRecords", openapitest.Fault{Status: http.StatusInternalServerError, Body: `{"message":"CredoError: boom"}`}, true},
		{"lookup unreadable", "GetAllOutOfBandRecords", openapitest.Fault{Status: http.StatusOK, Body: `{"not":"a list"}`}, true},
		// Gone between the lookup and the delete: what the delete wanted.
		{"delete finds nothing", "DeleteOutOfBandRecord", openapitest.Fault{Status: http.StatusNotFound, Body: `{"message":"OutOfBandRecord: record with id x not found."}`}, false},
		{"lookup finds nothing", "GetAllOutOfBandRecords", openapitest.Fault{Status: http.StatusOK, Body: `[]`}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := openapitest.NewCredo(t, openapitest.CredoOptions{})
			b := newBackend(t, fake, openapitest.CredoOptions{}, nil)
			ctx := context.Background()
			org := backend.Org{ID: "org-1"}
			res, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
			if err != nil {
				t.Fatal(err)
			}
			fake.Inject(tt.op, tt.fault)
			err = b.DiscardRecord(ctx, org, res)
			if (err != nil) != tt.wantErr {
				t.Errorf("DiscardRecord: %v, want an error: %v", err, tt.wantErr)
			}
			if !slices.Contains(fake.Operations(), tt.op) {
				t.Errorf("the agent was not asked %s: %v", tt.op, fake.Operations())
			}
			if _, err := b.RecordOrg(ctx, res.ProofRecord.ID); !errors.Is(err, backend.ErrNotFound) {
				t.Errorf("the owner is still remembered: %v", err)
			}
		})
	}
}

// TestDiscardRecordLegacyTenant: the legacy layout has no route known to
// delete a tenant's out-of-band record, so nothing is done there, the
// owner stays, and DiscardRecord says it cannot (the handler logs that
// the agent keeps the record, as before).
func TestDiscardRecordLegacyTenant(t *testing.T) {
	opts := openapitest.CredoOptions{Legacy: true, Tenants: []string{"tenant-a"}}
	fake := openapitest.NewCredo(t, opts)
	b := newBackend(t, fake, opts, nil)
	ctx := context.Background()
	org := backend.Org{ID: "org-1", Tenant: "tenant-a"}
	res, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	before := len(fake.Calls())
	if err := b.DiscardRecord(ctx, org, res); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("DiscardRecord: %v, want errors.ErrUnsupported", err)
	}
	if calls := fake.Calls()[before:]; len(calls) != 0 {
		t.Errorf("the agent was called: %v", calls[0].Path)
	}
	if got, err := b.RecordOrg(ctx, res.ProofRecord.ID); err != nil || got != org.ID {
		t.Errorf("owner %q, %v; want it kept", got, err)
	}
}

// TestInvitationRecords: only the out-of-band records of the invitation
// are deleted, whatever else the list holds (an agent or proxy that
// ignored invitationId would otherwise get every invitation deleted).
func TestInvitationRecords(t *testing.T) {
	const inv = "8d3c7a4e-2f1b-4c5d-9e6f-0a1b2c3d4e5f"
	for _, tt := range []struct {
		name string
		body string
		want []string
		ok   bool
	}{
		{"one", `[{"id":"r1","role":"sender","outOfBandInvitation":{"@id":"` + inv + `"}}]`, []string{"r1"}, true},
		{"filter ignored", `[{"id":"r0","role":"sender","outOfBandInvitation":{"@id":"another"}},{"id":"r1","role":"sender","outOfBandInvitation":{"@id":"` + inv + `"}}]`, []string{"r1"}, true},
		{"no role", `[{"id":"r1","outOfBandInvitation":{"@id":"` + inv + `"}}]`, []string{"r1"}, true},
		{"the agent received it too", `[{"id":"r2","role":"receiver","outOfBandInvitation":{"@id":"` + inv + `"}},{"id":"r1","role":"sender","outOfBandInvitation":{"@id":"` + inv + `"}}]`, []string{"r1"}, true},
		{"no invitation", `[{"id":"r1","role":"sender"}]`, nil, true},
		{"no id", `[{"role":"sender","outOfBandInvitation":{"@id":"` + inv + `"}}]`, nil, true},
		{"empty", `[]`, nil, true},
		{"not a list", `{"id":"r1"}`, nil, false},
		{"not records", `["r1"]`, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := invitationRecords([]byte(tt.body), inv)
			if ok != tt.ok || strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("got %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
