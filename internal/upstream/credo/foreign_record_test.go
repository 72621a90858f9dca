package credo

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// Answers about a record other than the one proofgate asked about (a
// buggy agent, or a proxy or cache in front of it answering from another
// request) are bad agent answers: never returned, remembered or counted
// as the record asked about.

// TestAcceptRefusesAnswerAboutAnotherRecord: an accept answered with
// another record is not returned as the accepted one, and a refused
// accept whose state read answers with another record is not a conflict
// in that record's state.
func TestAcceptRefusesAnswerAboutAnotherRecord(t *testing.T) {
	for _, tc := range []struct {
		name string
		// faults are injected with the other record's answer as Body
		// where it is empty.
		faults map[string]openapitest.Fault
	}{
		{"accept answers with another record", map[string]openapitest.Fault{
			"AcceptPresentation": {Status: http.StatusOK},
		}},
		{"state read after a refusal answers with another record", map[string]openapitest.Fault{
			"AcceptPresentation": {Status: http.StatusInternalServerError, Body: `{"message":"CredoError: something"}`},
			"GetProofById":       {Status: http.StatusOK},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := openapitest.NewCredo(t, openapitest.CredoOptions{})
			b := newBackend(t, fake, openapitest.CredoOptions{}, nil)
			ctx := context.Background()
			org := backend.Org{ID: "org-a"}
			res, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
			if err != nil {
				t.Fatal(err)
			}
			made := fake.AddRecord("") // on the agent directly
			other := openapitest.RecordAnswer(t, fake.Records(""), "id", made, func(r map[string]any) { r["state"] = backend.StateDone })
			for op, f := range tc.faults {
				if f.Body == "" {
					f.Body = other
				}
				fake.Inject(op, f)
			}
			rec, err := b.AcceptPresentation(ctx, org, res.ProofRecord.ID)
			var conflict *backend.ConflictError
			if errors.As(err, &conflict) {
				t.Fatalf("accept of %s: a conflict in the other record's state %q", res.ProofRecord.ID, conflict.State)
			}
			if err == nil {
				t.Fatalf("accept of %s answered with record %s (org %s)", res.ProofRecord.ID, rec.ID, rec.OrgID)
			}
			if tc.faults["AcceptPresentation"].Status == http.StatusOK {
				openapitest.RequireBadAnswer(t, "accept", err)
			}
		})
	}
}

// TestCreateRefusesAnotherOrgsRecord: a create whose answer names the
// thread of a record proofgate already remembers for another org fails
// as a bad answer, and the record stays the other org's.
func TestCreateRefusesAnotherOrgsRecord(t *testing.T) {
	fake := openapitest.NewCredo(t, openapitest.CredoOptions{})
	b := newBackend(t, fake, openapitest.CredoOptions{}, nil)
	ctx := context.Background()
	orgA, orgB := backend.Org{ID: "org-a"}, backend.Org{ID: "org-b"}
	resB, err := b.SendOutOfBandRequest(ctx, orgB, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		org  backend.Org
	}{
		{"another org's record", orgA},
		{"the same org's earlier record", orgB}, // not a record this create made either
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake.Inject("CreateRequest", openapitest.Fault{Status: http.StatusOK, Body: `{"invitationUrl":"http://agent?oob=x","invitation":{"@id":"0b3e1f4e-1c3a-4d5e-9f00-000000000001"},"proofRecordThId":"` + resB.ProofRecord.ThreadID + `"}`})
			res, err := b.SendOutOfBandRequest(ctx, tc.org, indyRequest())
			if err == nil {
				t.Fatalf("the create was answered with org B's record %s and accepted as %s", resB.ProofRecord.ID, res.ProofRecord.ID)
			}
			openapitest.RequireBadAnswer(t, "create", err)
			if org, err := b.RecordOrg(ctx, resB.ProofRecord.ID); err != nil || org != orgB.ID {
				t.Fatalf("owner of org B's record is now %q (%v), want %q", org, err, orgB.ID)
			}
		})
	}
}

// TestRecordOrgInReadsTheAnswer: a record proofgate never saw belongs to
// an org whose agent answers with that record, not with any 2xx: another
// record, or a page a proxy answers every path with, is a bad answer.
func TestRecordOrgInReadsTheAnswer(t *testing.T) {
	fake := openapitest.NewCredo(t, openapitest.CredoOptions{})
	b := newBackend(t, fake, openapitest.CredoOptions{}, nil)
	ctx := context.Background()
	org := backend.Org{ID: "org-a"}
	held := fake.AddRecord("")
	made := fake.AddRecord("")
	other := openapitest.RecordAnswer(t, fake.Records(""), "id", made, func(r map[string]any) { r["state"] = "request-sent" })
	const unknown = "5c0b6a52-3c59-4b0e-8d0a-0e8b2f3b7f21"
	for _, tc := range []struct {
		name    string
		id      string
		fault   *openapitest.Fault
		want    bool
		wantBad bool
	}{
		{"the agent holds it", held, nil, true, false},
		{"the agent does not hold it", unknown, nil, false, false},
		{"another record answered", unknown, &openapitest.Fault{Status: http.StatusOK, Body: other}, false, true},
		{"a page answered", unknown, &openapitest.Fault{Status: http.StatusOK, Body: "<html>sign in</html>", ContentType: "text/html"}, false, true},
		{"an empty object answered", unknown, &openapitest.Fault{Status: http.StatusOK, Body: "{}"}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fault != nil {
				fake.Inject("GetProofById", *tc.fault)
			}
			got, err := b.RecordOrgIn(ctx, org, tc.id)
			if got != tc.want {
				t.Fatalf("RecordOrgIn = %v, %v; want %v", got, err, tc.want)
			}
			if tc.wantBad {
				openapitest.RequireBadAnswer(t, "RecordOrgIn", err)
			} else if err != nil {
				t.Fatal(err)
			}
		})
	}
}
