package proofgate

import (
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/config"
)

// named stands for a configured backend: the router only compares them.
type named struct {
	backend.Backend
	name string
}

func TestMatch(t *testing.T) {
	h := &Handler{shortPrefix: "/v/url/", didcomm: map[string]didcommSite{"/v/didcomm": {}}}
	for _, tc := range []struct {
		path  string
		route route
		param string
	}{
		{"/orgs/org-1/proofs/oob", routeOOB, "org-1"},
		{"/orgs/6b1e0c52-1f0e-4d0a-9c3e-2f5b8c7d9e01/proofs/oob", routeOOB, "6b1e0c52-1f0e-4d0a-9c3e-2f5b8c7d9e01"},
		{"/proofs/abc/accept-presentation", routeAccept, "abc"},
		{"/proofs/abc", routeRecord, "abc"},
		{"/proofs/", routeNone, ""},
		{"/proofs/a/b", routeNone, ""},
		{"/v/url/AbCd_-12", routeShortURL, "AbCd_-12"},
		{"/v/didcomm", routeDIDComm, "/v/didcomm"},
		{"/v/didcomm/", routeNone, ""},
		{"/didcomm", routeNone, ""},
		{"/orgs//proofs/oob", routeNone, ""},
		{"/orgs/a/b/proofs/oob", routeNone, ""},
		{"/orgs/a/proofs/oob/", routeNone, ""},
		{"/orgs/a/proofs", routeNone, ""},
		{"/proofs//accept-presentation", routeNone, ""},
		{"/proofs/a/accept-presentation/x", routeNone, ""},
		{"/url/abc", routeNone, ""},
		{"/v/url/", routeNone, ""},
		{"/v/url/a/b", routeNone, ""},
		{"/", routeNone, ""},
	} {
		got, param := h.match(tc.path)
		if got != tc.route || param != tc.param {
			t.Errorf("match(%q) = %v %q, want %v %q", tc.path, got, param, tc.route, tc.param)
		}
	}
	if got, _ := (&Handler{}).match("/url/abc"); got != routeNone {
		t.Error("short URLs matched while disabled")
	}
}

func TestRouter(t *testing.T) {
	r := &router{
		byName: map[string]backend.Backend{"local": &named{name: "local"}, "credo": &named{name: "credo"}, "acapy": &named{name: "acapy"}},
		orgs: map[string]config.OrgRoute{
			"a": {Backend: "credo", Tenant: "t-a"},
			"b": {Backend: "acapy"},
			"c": {Backend: "local"},
			"d": {Backend: "credo"},
			"e": {Backend: "acapy", Tenant: "t-shared"},
			"f": {Backend: "acapy", Tenant: "t-shared"},
		},
		defaultName: "local",
	}
	r.index()
	if len(r.All()) != 3 || r.All()[0] != r.byName["local"] {
		t.Fatalf("All must list each backend once, the default first: %v", r.All())
	}
	for _, tc := range []struct {
		org       string
		backend   string
		tenant    string
		exclusive bool
	}{
		{"a", "credo", "t-a", true},       // a tenant of its own
		{"b", "acapy", "", true},          // the only org on acapy
		{"c", "local", "", false},         // the default serves others too
		{"d", "credo", "", true},          // the only tenant-less org on credo
		{"e", "acapy", "t-shared", false}, // a tenant another org has too
		{"f", "acapy", "t-shared", false},
		{"zz", "local", "", false}, // unlisted: the default
	} {
		b, org, ok := r.Route(tc.org)
		if !ok || b != r.byName[tc.backend] || org.ID != tc.org || org.Tenant != tc.tenant {
			t.Errorf("Route(%s) = %v %+v %v", tc.org, b, org, ok)
		}
		if got := r.Exclusive(tc.org); got != tc.exclusive {
			t.Errorf("Exclusive(%s) = %v, want %v", tc.org, got, tc.exclusive)
		}
	}
	if got := r.Orgs(); len(got) != 6 || got[0] != "a" || got[5] != "f" {
		t.Errorf("Orgs = %v", got)
	}
	r.defaultName = ""
	r.index()
	if _, _, ok := r.Route("zz"); ok {
		t.Error("an unlisted org was routed without a default")
	}
}
