package credo

import (
	"context"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// TestCheckOrg: a wrong org map is found by the load-time check, with a
// message naming what to fix.
func TestCheckOrg(t *testing.T) {
	multi := openapitest.CredoOptions{Tenants: []string{"tenant-a"}}
	tests := []struct {
		name   string
		opts   openapitest.CredoOptions
		org    backend.Org
		mutate func(*Backend)
		want   string // substring of the error; "" for none
	}{
		{name: "dedicated", org: backend.Org{ID: "o"}},
		{name: "tenant", opts: multi, org: backend.Org{ID: "o", Tenant: "tenant-a"}},
		{name: "unknown tenant", opts: multi, org: backend.Org{ID: "o", Tenant: "tenant-zz"}, want: "the agent has no tenant tenant-zz"},
		{name: "org without tenant on a multi-tenant agent", opts: multi, org: backend.Org{ID: "o"}, want: "give the org a tenant (org o <backend> tenant <tenant id>)"},
		{name: "default backend on a multi-tenant agent", opts: multi, org: backend.Org{ID: "*"}, want: "choose another default_backend"},
		{name: "wrong token", org: backend.Org{ID: "o"}, mutate: func(b *Backend) { b.Token = "nope" }, want: "refuses proofgate's token"},
		{name: "configured tenant token of an unknown tenant", opts: multi, org: backend.Org{ID: "o", Tenant: "tenant-zz"},
			mutate: func(b *Backend) { b.Token = ""; b.TenantTokens = map[string]string{"tenant-zz": "stale"} }, want: "refuses proofgate's token"},
		{name: "legacy tenant", opts: openapitest.CredoOptions{Legacy: true, Tenants: []string{"tenant-a"}}, org: backend.Org{ID: "o", Tenant: "tenant-a"}},
		{name: "legacy unknown tenant", opts: openapitest.CredoOptions{Legacy: true, Tenants: []string{"tenant-a"}}, org: backend.Org{ID: "o", Tenant: "tenant-zz"}, want: "the agent has no tenant tenant-zz"},
		{name: "legacy org without tenant on a multi-tenant agent", opts: openapitest.CredoOptions{Legacy: true, Tenants: []string{"tenant-a"}}, org: backend.Org{ID: "o"}, want: "give the org a tenant"},
		{name: "agent down", org: backend.Org{ID: "o"}, mutate: func(b *Backend) { b.URL = "http://127.0.0.1:1" }, want: "could not check the org"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := openapitest.NewCredo(t, tt.opts)
			b := newBackend(t, fake, tt.opts, tt.mutate)
			err := b.CheckOrg(context.Background(), tt.org)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("CheckOrg: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("CheckOrg: %v, want an error saying %q", err, tt.want)
			}
			if n := len(fake.Records(tt.org.Tenant)); n != 0 {
				t.Errorf("the check created %d records", n)
			}
		})
	}
}
