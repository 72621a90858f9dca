package proofgate

import (
	"sort"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/config"
)

// checkingBackend records the orgs it is asked to check.
type checkingBackend struct {
	backend.Backend
	got []backend.Org
}

func (c *checkingBackend) CheckOrgs(orgs []backend.Org) { c.got = orgs }

// TestStartOrgChecks: each upstream backend is asked about exactly the
// orgs mapped to it (with their tenants), and an explicit default backend
// about the unmapped ones ("*"); backends that cannot check are skipped.
func TestStartOrgChecks(t *testing.T) {
	credo, acapy := &checkingBackend{}, &checkingBackend{}
	r := &router{byName: map[string]backend.Backend{"credo": credo, "acapy": acapy, "local": struct{ backend.Backend }{}}}
	orgs := map[string]config.OrgRoute{
		"org-1": {Backend: "credo", Tenant: "t-1"},
		"org-2": {Backend: "credo"},
		"org-3": {Backend: "local"},
	}
	startOrgChecks(r, orgs, "acapy")
	sort.Slice(credo.got, func(i, j int) bool { return credo.got[i].ID < credo.got[j].ID })
	if len(credo.got) != 2 || credo.got[0] != (backend.Org{ID: "org-1", Tenant: "t-1"}) || credo.got[1] != (backend.Org{ID: "org-2"}) {
		t.Errorf("credo checks %+v", credo.got)
	}
	if len(acapy.got) != 1 || acapy.got[0].ID != "*" {
		t.Errorf("acapy (default backend) checks %+v", acapy.got)
	}

	// An implied default (the only backend) is not checked for unmapped orgs.
	only := &checkingBackend{}
	startOrgChecks(&router{byName: map[string]backend.Backend{"credo": only}, defaultName: "credo"}, nil, "")
	if len(only.got) != 0 {
		t.Errorf("implied default checked: %+v", only.got)
	}
}
