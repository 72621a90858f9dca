package proofgate

import (
	"strings"
	"testing"
)

// FuzzMatch: the route matcher of every request path never panics, and a
// path it claims has its parameter as one non-empty segment that is part
// of the path.
func FuzzMatch(f *testing.F) {
	h := &Handler{shortPrefix: "/url/", didcomm: map[string]didcommSite{"/didcomm": {}}}
	for _, s := range []string{
		"/orgs/o1/proofs/oob", "/orgs//proofs/oob", "/orgs/a/b/proofs/oob", "/proofs/6ba822ed-1f81-4d59-b602-3fb96d3bf272/accept-presentation",
		"/url/JmATy-iojaQo6adP", "/url/", "/url/a/b", "/didcomm", "/didcomm/", "/", "", "/orgs/%2e%2e/proofs/oob",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		rt, param := h.match(path)
		switch rt {
		case routeNone:
			if param != "" {
				t.Fatalf("no route but a parameter %q", param)
			}
		case routeDIDComm:
			if param != path {
				t.Fatalf("didcomm parameter %q for %q", param, path)
			}
		default:
			if param == "" || strings.Contains(param, "/") || !strings.Contains(path, "/"+param+"/") && !strings.HasSuffix(path, "/"+param) {
				t.Fatalf("route %d parameter %q for %q", rt, param, path)
			}
		}
	})
}
