package credo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
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
	}
	for _, layout := range []openapitest.CredoOptions{{}, {Tenants: []string{"tenant-a"}}} {
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
				rec, err := b.AcceptPresentation(ctx, org, id)
				var unmet *backend.UnmetRequestError
				var conflict *backend.ConflictError
				switch {
				case tt.wantState != "":
					if !errors.As(err, &conflict) || conflict.State != tt.wantState {
						t.Fatalf("accept: %v, want a conflict in %s", err, tt.wantState)
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
				if accepted != (tt.wantUnmet == "" && tt.wantState == "") {
					t.Errorf("accept-presentation called: %v (operations %v)", accepted, fake.Operations())
				}
			})
		}
	}
}

// An indy request's type is remembered with its owner, so its accept
// costs the one agent call it always did; a record whose type proofgate
// does not know (made elsewhere) is asked for; the legacy layout is not
// checked (its format-data routes are not known).
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
		{"legacy layout", openapitest.CredoOptions{Legacy: true}, false, peRequest(), []string{"AcceptPresentation"}},
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
			fake.SetState("", id, backend.StatePresentationReceived)
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
