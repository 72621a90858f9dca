package credo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/checkslots"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// ldpPresentation answers peDefinition's one input descriptor with a
// credential of subject.
func ldpPresentation(challenge string, subject map[string]any) map[string]any {
	return openapitest.LDPPresentation("32f54163-7166-48f1-93d8-ff217bdb0653", "wa_driver_license", challenge, subject)
}

// Credo accepts a presentation-exchange presentation whatever its fields
// say; the backend checks it against the definition first, and one that
// does not meet it is never accepted at the agent (no ack goes out).
func TestAcceptChecksPresentationExchange(t *testing.T) {
	tests := []struct {
		name      string
		present   func(challenge string) any // nil: no presentation yet
		wantUnmet string                     // a problem naming this; "" for an accepted presentation
		wantState string                     // a 409 naming this state
		agentSets string                     // the state the agent moved the record to on its own
	}{
		{name: "meets the definition", present: func(c string) any {
			return ldpPresentation(c, map[string]any{"id": "did:example:holder", "dateOfBirth": "1990-01-01"})
		}},
		{name: "required field missing", wantUnmet: "dateOfBirth", present: func(c string) any {
			return ldpPresentation(c, map[string]any{"id": "did:example:holder", "name": "Alice"})
		}},
		{name: "field fails its filter", wantUnmet: "dateOfBirth", present: func(c string) any {
			return ldpPresentation(c, map[string]any{"id": "did:example:holder", "dateOfBirth": "born long ago"})
		}},
		{name: "another request's challenge", wantUnmet: "challenge", present: func(string) any {
			return ldpPresentation("another-challenge", map[string]any{"id": "did:example:holder", "dateOfBirth": "1990-01-01"})
		}},
		{name: "no presentation yet", wantState: backend.StateRequestSent},
		// Accepted by Credo on its own (autoAcceptProof always): a
		// conflict, with what the presentation lacks.
		{name: "unmet, already accepted by the agent", wantState: backend.StateDone, wantUnmet: "dateOfBirth", agentSets: backend.StateDone, present: func(c string) any {
			return ldpPresentation(c, map[string]any{"id": "did:example:holder", "name": "Alice"})
		}},
		{name: "met, already accepted by the agent", wantState: backend.StateDone, agentSets: backend.StateDone, present: func(c string) any {
			return ldpPresentation(c, map[string]any{"id": "did:example:holder", "dateOfBirth": "1990-01-01"})
		}},
	}
	for _, layout := range []openapitest.CredoOptions{{}, {Tenants: []string{"tenant-a"}}, {Legacy: true}, {Legacy: true, Tenants: []string{"tenant-a"}}} {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				fake := openapitest.NewCredo(t, layout)
				b := newBackend(t, fake, layout, nil)
				org := backend.Org{ID: "org-1"}
				if len(layout.Tenants) > 0 {
					org.Tenant = "tenant-a"
				}
				ctx := context.Background()
				req := peRequest()
				req.AutoAcceptProof = "never"
				res, err := b.SendOutOfBandRequest(ctx, org, req)
				if err != nil {
					t.Fatal(err)
				}
				id := res.ProofRecord.ID
				if tt.present != nil {
					fake.Present(org.Tenant, id, tt.present(fake.Challenge(id)))
				}
				if tt.agentSets != "" {
					fake.SetState(org.Tenant, id, tt.agentSets)
				}
				rec, err := b.AcceptPresentation(ctx, org, id)
				var unmet *backend.UnmetRequestError
				var conflict *backend.ConflictError
				switch {
				case tt.wantState != "":
					if !errors.As(err, &conflict) || conflict.State != tt.wantState {
						t.Fatalf("accept: %v, want a conflict in %s", err, tt.wantState)
					}
					if got := strings.Join(conflict.Unmet, "\n"); tt.wantUnmet == "" && got != "" || !strings.Contains(got, tt.wantUnmet) {
						t.Fatalf("conflict's unmet problems %q, want ones naming %q", conflict.Unmet, tt.wantUnmet)
					}
				case tt.wantUnmet != "":
					if !errors.As(err, &unmet) || !strings.Contains(strings.Join(unmet.Problems, "\n"), tt.wantUnmet) {
						t.Fatalf("accept: %v, want the presentation refused naming %q", err, tt.wantUnmet)
					}
				default:
					if err != nil || rec.State != backend.StateDone {
						t.Fatalf("accept: %+v, %v", rec, err)
					}
				}
				accepted := slices.Contains(fake.Operations(), "AcceptPresentation")
				if accepted != (tt.wantUnmet == "" && tt.wantState == "") && tt.agentSets == "" {
					t.Errorf("accept-presentation called: %v (operations %v)", accepted, fake.Operations())
				}
			})
		}
	}
}

// An indy request's type is remembered with its owner, so its accept
// costs the one agent call it always did; a record whose type proofgate
// does not know (made elsewhere) is asked for, in the legacy layout too
// (its own format-data routes).
func TestFormDataIsAskedOnlyWhereNeeded(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      openapitest.CredoOptions
		elsewhere bool
		req       backend.OOBRequest
		want      []string
	}{
		{"indy through proofgate", openapitest.CredoOptions{}, false, indyRequest(), []string{"AcceptPresentation"}},
		{"record made elsewhere", openapitest.CredoOptions{}, true, backend.OOBRequest{}, []string{"ProofFormData", "AcceptPresentation"}},
		{"legacy layout, indy", openapitest.CredoOptions{Legacy: true}, false, indyRequest(), []string{"AcceptPresentation"}},
		{"legacy layout, presentation exchange", openapitest.CredoOptions{Legacy: true}, false, peRequest(), []string{"ProofFormData", "AcceptPresentation"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := openapitest.NewCredo(t, tc.opts)
			b := newBackend(t, fake, tc.opts, nil)
			org := backend.Org{ID: "org-1"}
			ctx := context.Background()
			var id string
			if tc.elsewhere {
				id = fake.AddRecord("")
			} else {
				res, err := b.SendOutOfBandRequest(ctx, org, tc.req)
				if err != nil {
					t.Fatal(err)
				}
				id = res.ProofRecord.ID
			}
			if tc.req.RequestType == backend.RequestPresentationExchange {
				fake.Present("", id, ldpPresentation(fake.Challenge(id), map[string]any{"id": "did:example:holder", "dateOfBirth": "1990-01-01"}))
			} else {
				fake.SetState("", id, backend.StatePresentationReceived)
			}
			before := len(fake.Operations())
			if _, err := b.AcceptPresentation(ctx, org, id); err != nil {
				t.Fatal(err)
			}
			if got := fake.Operations()[before:]; !slices.Equal(got, tc.want) {
				t.Errorf("accept called %v, want %v", got, tc.want)
			}
		})
	}
}

// The check runs inside the process-wide cap on concurrent presentation
// checks the local verifier's DIDComm checks share (internal/checkslots);
// the agent's calls do not hold a slot. With every slot taken an accept
// reads the format data, waits checkslots.Wait and answers a 503-class
// error (ErrUnavailable, ErrBusy for the handler's Retry-After) without
// accepting anything at the agent; a caller gone meanwhile gets its own
// error, not a 503. Once the slots free, the same accept goes through, and
// gives its slot back.
func TestAcceptWaitsForACheckSlot(t *testing.T) {
	old := checkslots.Wait
	checkslots.Wait = time.Millisecond
	t.Cleanup(func() { checkslots.Wait = old })

	fake := openapitest.NewCredo(t, openapitest.CredoOptions{})
	b := newBackend(t, fake, openapitest.CredoOptions{}, nil)
	org := backend.Org{ID: "org-1"}
	req := peRequest()
	req.AutoAcceptProof = "never"
	res, err := b.SendOutOfBandRequest(context.Background(), org, req)
	if err != nil {
		t.Fatal(err)
	}
	id := res.ProofRecord.ID
	fake.Present("", id, ldpPresentation(fake.Challenge(id), map[string]any{"id": "did:example:holder", "dateOfBirth": "1990-01-01"}))

	// accept accepts record id with ctx and returns the agent operations
	// it called.
	accept := func(ctx context.Context) (backend.ProofRecord, []string, error) {
		before := len(fake.Operations())
		rec, err := b.AcceptPresentation(ctx, org, id)
		return rec, fake.Operations()[before:], err
	}
	// takeAll takes every checking slot; free gives them back.
	takeAll := func() (free func()) {
		var releases []func()
		free = func() {
			for _, release := range releases {
				release()
			}
		}
		for range checkslots.Max {
			release, err := checkslots.Admit(context.Background())
			if err != nil {
				free()
				t.Fatalf("taking slot %d of %d: %v", len(releases)+1, checkslots.Max, err)
			}
			releases = append(releases, release)
		}
		return free
	}

	free := takeAll()
	_, ops, err := accept(context.Background())
	if !errors.Is(err, backend.ErrUnavailable) || !errors.Is(err, checkslots.ErrBusy) {
		free()
		t.Fatalf("accept with every slot taken: %v, want ErrUnavailable and checkslots.ErrBusy", err)
	}
	if !slices.Equal(ops, []string{"ProofFormData"}) {
		t.Errorf("accept with every slot taken called %v, want the format data only", ops)
	}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ops, err = accept(gone); !errors.Is(err, context.Canceled) || errors.Is(err, backend.ErrUnavailable) || slices.Contains(ops, "AcceptPresentation") {
		t.Errorf("accept by a caller gone, every slot taken: %v, called %v; want context.Canceled, not a 503, nothing accepted", err, ops)
	}
	free()

	rec, ops, err := accept(context.Background())
	if err != nil || rec.State != backend.StateDone {
		t.Fatalf("accept with the slots free: %+v, %v", rec, err)
	}
	if !slices.Equal(ops, []string{"ProofFormData", "AcceptPresentation"}) {
		t.Errorf("accept with the slots free called %v", ops)
	}
	takeAll()() // every slot is free again: the accept gave its own back
}
