package acapy

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// Answers about a record other than the one proofgate asked about (a
// buggy or compromised agent, or a proxy replaying a cached answer) are
// bad agent answers: never returned, remembered, deleted or counted as
// the record asked about.

// TestCreateRefusesAnotherOrgsRecord: ACA-Py's create-request answer
// names the pres_ex_id. When it names a record proofgate remembers for
// org B, org A's create fails as a bad answer whatever happens next, and
// nothing it does to clean up touches B's record: it is neither deleted at
// the agent nor forgotten, and stays B's.
func TestCreateRefusesAnotherOrgsRecord(t *testing.T) {
	orgA, orgB := backend.Org{ID: "org-a"}, backend.Org{ID: "org-b"}
	for _, tc := range []struct {
		name string
		org  backend.Org
		// edit changes B's record in the create-request answer.
		edit func(map[string]any)
		// invitation fails when set.
		invitationFails bool
		// callerGone cancels A's request once the agent has answered.
		callerGone bool
		// wantBad: the create fails as a bad answer (otherwise with the
		// caller's going away).
		wantBad bool
	}{
		{name: "invitation succeeds", org: orgA, wantBad: true},
		{name: "invitation fails", org: orgA, invitationFails: true, wantBad: true},
		{name: "the same org's earlier record", org: orgB, invitationFails: true, wantBad: true},
		{name: "answer unusable", org: orgA, edit: func(r map[string]any) { delete(r, "thread_id") }, wantBad: true},
		{name: "caller gone", org: orgA, callerGone: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b := newBackend(t, fake, func(b *Backend) {
				if tc.callerGone {
					b.URL = openapitest.CallerGoneProxy(t, fake.URL, "/create-request", cancel)
				}
			})
			resB, err := b.SendOutOfBandRequest(context.Background(), orgB, indyRequest())
			if err != nil {
				t.Fatal(err)
			}
			fake.Inject(openapitest.ACAPyCreateRequest, openapitest.Fault{Status: http.StatusOK, Body: openapitest.RecordAnswer(t, fake.Records(""), "pres_ex_id", resB.ProofRecord.ID, tc.edit)})
			if tc.invitationFails {
				fake.Inject(openapitest.ACAPyCreateInvitation, openapitest.Fault{Status: http.StatusInternalServerError, Body: "500: x", ContentType: "text/plain"})
			}
			res, err := b.SendOutOfBandRequest(ctx, tc.org, indyRequest())
			if err == nil {
				t.Fatalf("the create was answered with org B's record %s and accepted as %s", resB.ProofRecord.ID, res.ProofRecord.ID)
			}
			if tc.wantBad {
				openapitest.RequireBadAnswer(t, "create", err)
			}
			if n := len(fake.Records("")); n != 1 {
				t.Errorf("org B's record was deleted at the agent (%d records left)", n)
			}
			if org, err := b.RecordOrg(context.Background(), resB.ProofRecord.ID); err != nil || org != orgB.ID {
				t.Errorf("owner of org B's record: %q, %v; want %q", org, err, orgB.ID)
			}
		})
	}
}

// TestAcceptRefusesAnswerAboutAnotherRecord: verify-presentation
// answered with another record is not returned as the accepted one, and a
// record read that decides a conflict must be the record accepted.
func TestAcceptRefusesAnswerAboutAnotherRecord(t *testing.T) {
	ctx := context.Background()
	org := backend.Org{ID: "org-a"}
	for _, tc := range []struct {
		name string
		// polled has the record found not ready by an earlier accept, so
		// the accept reads it first.
		polled bool
		op     string
	}{
		{name: "verify-presentation answers with another record", op: openapitest.ACAPyVerify},
		{name: "the record read of a polled accept answers with another record", polled: true, op: openapitest.ACAPyGetRecord},
		{name: "the record read after a refusal answers with another record", op: openapitest.ACAPyGetRecord},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{})
			b := newBackend(t, fake, nil)
			r1, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
			if err != nil {
				t.Fatal(err)
			}
			r2, err := b.SendOutOfBandRequest(ctx, backend.Org{ID: "org-b"}, indyRequest())
			if err != nil {
				t.Fatal(err)
			}
			if tc.polled {
				var conflict *backend.ConflictError
				if _, err := b.AcceptPresentation(ctx, org, r1.ProofRecord.ID); !errors.As(err, &conflict) {
					t.Fatalf("early accept: %v, want a conflict", err)
				}
			}
			if tc.op == openapitest.ACAPyGetRecord && !tc.polled {
				// A refusal whose message does not name the state: the
				// record is read to tell.
				fake.Inject(openapitest.ACAPyVerify, openapitest.Fault{Status: http.StatusBadRequest, Body: "400: no", ContentType: "text/plain"})
			}
			state := backend.StateDone
			if tc.op == openapitest.ACAPyGetRecord {
				state = "abandoned" // a conflict, were it taken for r1's
			}
			other := openapitest.RecordAnswer(t, fake.Records(""), "pres_ex_id", r2.ProofRecord.ID, func(r map[string]any) { r["state"], r["verified"] = state, "true" })
			fake.Inject(tc.op, openapitest.Fault{Status: http.StatusOK, Body: other})
			rec, err := b.AcceptPresentation(ctx, org, r1.ProofRecord.ID)
			var conflict *backend.ConflictError
			if errors.As(err, &conflict) {
				t.Fatalf("accept of %s: a conflict in the other record's state %q", r1.ProofRecord.ID, conflict.State)
			}
			if err == nil {
				t.Fatalf("accept of %s answered with record %s (org %s)", r1.ProofRecord.ID, rec.ID, rec.OrgID)
			}
			if tc.op == openapitest.ACAPyVerify || tc.polled {
				openapitest.RequireBadAnswer(t, "accept", err)
			}
		})
	}
}

// TestRecordOrgInReadsTheAnswer: a record proofgate never saw belongs to
// an org whose wallet answers with that record, not with another record
// or a page a proxy answers every path with.
func TestRecordOrgInReadsTheAnswer(t *testing.T) {
	ctx := context.Background()
	fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{})
	b := newBackend(t, fake, nil)
	org := backend.Org{ID: "org-a"}
	res, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	held := res.ProofRecord.ID
	if err := b.owners.Forget(ctx, held); err != nil { // as if made on the agent directly
		t.Fatal(err)
	}
	other := openapitest.RecordAnswer(t, fake.Records(""), "pres_ex_id", held, nil)
	const unknown = "5c0b6a52-3c59-4b0e-8d0a-0e8b2f3b7f21"
	for _, tc := range []struct {
		name    string
		id      string
		fault   *openapitest.Fault
		want    bool
		wantBad bool
	}{
		{"the wallet holds it", held, nil, true, false},
		{"the wallet does not hold it", unknown, nil, false, false},
		{"another record answered", unknown, &openapitest.Fault{Status: http.StatusOK, Body: other}, false, true},
		{"a page answered", unknown, &openapitest.Fault{Status: http.StatusOK, Body: "<html>sign in</html>", ContentType: "text/html"}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fault != nil {
				fake.Inject(openapitest.ACAPyGetRecord, *tc.fault)
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
