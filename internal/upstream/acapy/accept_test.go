package acapy

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// TestAcceptCalls pins which agent calls each accept makes: one
// verify-presentation when the record is ready, and, once a record was
// found not ready, a read first on later accepts (ACA-Py logs every refused
// verify-presentation as an ERROR with a traceback), until it is accepted.
func TestAcceptCalls(t *testing.T) {
	fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{})
	b := newBackend(t, fake, nil)
	org := backend.Org{ID: "org-1"}
	ctx := context.Background()
	created := func() string {
		res, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
		if err != nil {
			t.Fatal(err)
		}
		return res.ProofRecord.ID
	}
	ops := func() func() []string {
		seen := len(fake.Operations())
		return func() []string { return fake.Operations()[seen:] }
	}
	// accept wants the record done, or a conflict naming conflictState.
	accept := func(id, conflictState string) {
		t.Helper()
		rec, err := b.AcceptPresentation(ctx, org, id)
		var conflict *backend.ConflictError
		switch {
		case conflictState == "" && err == nil && rec.State == backend.StateDone:
		case conflictState != "" && errors.As(err, &conflict) && conflict.State == conflictState:
		default:
			t.Fatalf("accept: %+v, %v; want conflict %q", rec, err, conflictState)
		}
	}
	verify, read := openapitest.ACAPyVerify, openapitest.ACAPyGetRecord

	ready := created()
	fake.SetState("", ready, backend.StatePresentationReceived)
	calls := ops()
	accept(ready, "")
	if got := calls(); strings.Join(got, ",") != verify {
		t.Errorf("accept of a ready record called %v, want only verify-presentation", got)
	}

	polled := created()
	calls = ops()
	accept(polled, backend.StateRequestSent)
	if got := calls(); strings.Join(got, ",") != verify {
		t.Errorf("first early accept called %v, want verify-presentation (answered 400 in request-sent)", got)
	}
	for i := 0; i < 3; i++ {
		calls = ops()
		accept(polled, backend.StateRequestSent)
		if got := calls(); strings.Join(got, ",") != read {
			t.Errorf("poll %d called %v, want only a read of the record", i, got)
		}
	}
	fake.SetState("", polled, backend.StatePresentationReceived)
	calls = ops()
	accept(polled, "")
	if got := calls(); strings.Join(got, ",") != read+","+verify {
		t.Errorf("accept once ready called %v, want read then verify-presentation", got)
	}
	calls = ops()
	accept(polled, backend.StateDone)
	if got := calls(); strings.Join(got, ",") != verify {
		t.Errorf("second accept of a done record called %v, want verify-presentation (answered 400 in done)", got)
	}
	calls = ops()
	accept(polled, backend.StateDone)
	if got := calls(); strings.Join(got, ",") != read {
		t.Errorf("third accept of a done record called %v, want only a read", got)
	}
}

// TestIsUUID4 checks the hand-written check against the pattern of
// ACA-Py's schemas.
func TestIsUUID4(t *testing.T) {
	schema := regexp.MustCompile(`^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-4[a-fA-F0-9]{3}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$`)
	for _, s := range []string{
		"", "3fa85f64-5717-4562-b3fc-2c963f66afa6", "3FA85F64-5717-4562-B3FC-2C963F66AFA6",
		"3fa85f64-5717-3562-b3fc-2c963f66afa6", "3fa85f64-5717-4562-b3fc-2c963f66afa", "3fa85f64-5717-4562-b3fc-2c963f66afa6a",
		"3fa85f64x5717-4562-b3fc-2c963f66afa6", "3fa85f64-5717-4562-b3fc-2c963f66afg6", "3fa85f64-5717-4562-c3fc-2c963f66afa6",
		"3fa85f64-5717-4562-b3fc-2c963f66af\u00e96", "../../../../../../../../../../../../..", "3fa85f64-5717-4562-b3fc_2c963f66afa6",
	} {
		if got, want := isUUID4(s), schema.MatchString(s); got != want {
			t.Errorf("isUUID4(%q) = %v, the schema's pattern says %v", s, got, want)
		}
	}
}
