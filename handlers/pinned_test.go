package handlers

// The tests in this file pin checks that a round of mutation testing
// found held by no test: each fails when its check is dropped or weakened.

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/backend"
)

// askedBackend remembers nothing and says it holds every record, counting
// the ownership questions it is asked.
type askedBackend struct {
	asked int
	holds bool
}

func (b *askedBackend) SendOutOfBandRequest(context.Context, backend.Org, backend.OOBRequest) (backend.OOBResult, error) {
	return backend.OOBResult{}, errors.New("unused")
}
func (b *askedBackend) AcceptPresentation(context.Context, backend.Org, string) (backend.ProofRecord, error) {
	return backend.ProofRecord{}, errors.New("unused")
}
func (b *askedBackend) RecordOrg(context.Context, string) (string, error) {
	return "", backend.ErrNotFound
}
func (b *askedBackend) RecordOrgIn(context.Context, backend.Org, string) (bool, error) {
	b.asked++
	return b.holds, nil
}

// everyOrgRouter routes n exclusive orgs to one backend.
type everyOrgRouter struct {
	b    backend.Backend
	orgs []string
}

func (r everyOrgRouter) Route(org string) (backend.Backend, backend.Org, bool) {
	return r.b, backend.Org{ID: org}, true
}
func (r everyOrgRouter) All() []backend.Backend { return []backend.Backend{r.b} }
func (r everyOrgRouter) Exclusive(string) bool  { return true }
func (r everyOrgRouter) Orgs() []string         { return r.orgs }

// A caller of no org (a JWT without the orgs claim) asks no agent about a
// record: only its own orgs' agents are asked, and only callers of every
// org ("*") ask every routed org's.
func TestCallerOfNoOrgAsksNoAgent(t *testing.T) {
	b := &askedBackend{holds: true}
	var orgs []string
	for i := range 40 {
		orgs = append(orgs, fmt.Sprintf("org-%02d", i))
	}
	g := &Gateway{Backends: everyOrgRouter{b, orgs}}
	_, _, err := g.findRecord(context.Background(), &auth.Principal{Subject: "jwt:x", Orgs: map[string][]string{}}, "3fa85f64-5717-4562-b3fc-2c963f66afa6")
	if !errors.Is(err, backend.ErrNotFound) || b.asked != 0 {
		t.Fatalf("err %v after %d ownership questions; want ErrNotFound after none", err, b.asked)
	}
	// A caller of every org asks at most maxOwnershipQueries agents
	// about a record none holds.
	b = &askedBackend{}
	g = &Gateway{Backends: everyOrgRouter{b, orgs}}
	_, _, err = g.findRecord(context.Background(), &auth.Principal{Subject: "api_key:x", AllOrgs: true}, "3fa85f64-5717-4562-b3fc-2c963f66afa6")
	if !errors.Is(err, backend.ErrNotFound) || b.asked != maxOwnershipQueries {
		t.Fatalf("caller of every org: err %v after %d ownership questions; want ErrNotFound after %d", err, b.asked, maxOwnershipQueries)
	}
}
