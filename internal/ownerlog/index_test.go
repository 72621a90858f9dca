package ownerlog

import (
	"context"
	"fmt"
	"testing"
)

func TestParseUUID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"3fa85f64-5717-4562-b3fc-2c963f66afa6", true},
		{"3FA85F64-5717-4562-B3FC-2C963F66AFA6", false}, // another spelling: kept as a string
		{"3fa85f64x5717-4562-b3fc-2c963f66afa6", false},
		{"3fa85f64-5717-4562-b3fc-2c963f66afa", false},
		{"{3fa85f64-5717-4562-b3fc-2c963f66afa}", false},
		{"3fa85f64-5717-4562-b3fc-2c963f66afg6", false},
		{"", false},
	} {
		u, ok := parseUUID(tc.id)
		if ok != tc.ok {
			t.Errorf("parseUUID(%q) ok = %v", tc.id, ok)
		}
		if ok && fmt.Sprintf("%x-%x-%x-%x-%x", u[:4], u[4:6], u[6:8], u[8:10], u[10:]) != tc.id {
			t.Errorf("parseUUID(%q) = %x", tc.id, u)
		}
	}
	// Two spellings of one UUID are two records.
	x := newIndex()
	x.add([]Entry{{ID: "3fa85f64-5717-4562-b3fc-2c963f66afa6", OrgID: "a"}}, nil)
	if _, ok := x.get("3FA85F64-5717-4562-B3FC-2C963F66AFA6"); ok {
		t.Fatal("an upper-case spelling found the lower-case record")
	}
}

// The tenant and agent an owner was created on are kept with its org: one
// org's records on two tenants, and on the base wallet, each keep their
// own.
func TestOwnerKeepsItsTenant(t *testing.T) {
	x := newIndex()
	x.add([]Entry{
		{ID: "3fa85f64-5717-4562-b3fc-2c963f66afa6", OrgID: "a", Tenant: "t1", Agent: "credo http://agent"},
		{ID: "4fa85f64-5717-4562-b3fc-2c963f66afa6", OrgID: "a", Tenant: "t2", Agent: "credo http://agent"},
		{ID: "5fa85f64-5717-4562-b3fc-2c963f66afa6", OrgID: "a", Agent: "credo http://agent"},
		{ID: "not-a-uuid", OrgID: "b", Tenant: "t1", Agent: "credo http://agent"},
	}, nil)
	for id, want := range map[string][2]string{
		"3fa85f64-5717-4562-b3fc-2c963f66afa6": {"a", "t1"},
		"4fa85f64-5717-4562-b3fc-2c963f66afa6": {"a", "t2"},
		"5fa85f64-5717-4562-b3fc-2c963f66afa6": {"a", ""},
		"not-a-uuid":                           {"b", "t1"},
	} {
		o, ok := x.getOwner(id)
		if !ok || o.OrgID != want[0] || o.Tenant != want[1] || o.Agent != "credo http://agent" {
			t.Errorf("%s: %+v %v, want %q %q", id, o, ok, want[0], want[1])
		}
		if org, _ := x.get(id); org != want[0] {
			t.Errorf("%s: get %q", id, org)
		}
	}
	if len(x.orgs) != 4 {
		t.Errorf("%d (org, tenant, agent) triples kept, want 4", len(x.orgs))
	}
}

// A record's request type survives the storage (another instance reads
// it back) and sets owners apart like a tenant does; an entry of an
// earlier version has none.
func TestOwnerKeepsItsRequestType(t *testing.T) {
	for name := range sinks("") {
		t.Run(name, func(t *testing.T) {
			storage := sinks(t.TempDir())[name]
			a, b := open(storage, testDir, nil), opened(t, storage)
			want := map[string]string{uuidN(1): "presentationExchange", uuidN(2): "indy", uuidN(3): ""}
			for id, rt := range want {
				if err := a.Append(Entry{ID: id, OrgID: "org", Agent: "credo http://agent", RequestType: rt}); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.Refresh(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, l := range []*Log{a, b} {
				for id, rt := range want {
					if o, ok := l.Owner(id); !ok || o.RequestType != rt || o.OrgID != "org" {
						t.Errorf("%s: %+v %v, want request type %q", id, o, ok, rt)
					}
				}
			}
		})
	}
}
