package credo

// The tests in this file pin checks that a round of mutation testing
// found held by no test: each fails when its check is dropped or weakened.

import (
	"context"
	"net/http"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// An agent that fails the ownership question (500) is an error, not "the
// agent does not hold it" (which would answer 404 for a record that may
// exist).
func TestRecordOrgInAgentErrorIsAnError(t *testing.T) {
	fake := openapitest.NewCredo(t, openapitest.CredoOptions{})
	b := newBackend(t, fake, openapitest.CredoOptions{}, nil)
	fake.Inject("GetProofById", openapitest.Fault{Status: http.StatusInternalServerError, Body: `{"message":"boom"}`})
	got, err := b.RecordOrgIn(context.Background(), backend.Org{ID: "org-a"}, "5c0b6a52-3c59-4b0e-8d0a-0e8b2f3b7f21")
	if got || err == nil {
		t.Fatalf("RecordOrgIn = %v, %v; want an error", got, err)
	}
}
