package proofgate

import (
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/proofgate/proofgate/handlers"
)

// TestRequestLogChanges: the state changes a request caused are on its
// line, flat for one record and as state_changes for several (a send to
// several recipients).
func TestRequestLogChanges(t *testing.T) {
	a := handlers.RecordChange{ProofRecordID: "0f8fad5b-d9cb-469f-a165-70867728950e", State: "request-sent"}
	b := handlers.RecordChange{ProofRecordID: "7c9e6679-7425-40de-944b-e07fc1f90ae7", State: "request-sent"}
	accepted := handlers.RecordChange{ProofRecordID: a.ProofRecordID, PreviousState: "presentation-received", State: "done"}
	for _, tc := range []struct {
		name    string
		rt      route
		param   string
		changes []handlers.RecordChange
		want    map[string]any
		absent  []string
	}{
		{"none", routeOOB, "org", nil, map[string]any{}, []string{"proof_record_id", "state", "state_changes"}},
		{"a create", routeOOB, "org", []handlers.RecordChange{a},
			map[string]any{"proof_record_id": a.ProofRecordID, "state": "request-sent"}, []string{"previous_state", "state_changes"}},
		{"an accept", routeAccept, a.ProofRecordID, []handlers.RecordChange{accepted},
			map[string]any{"proof_record_id": a.ProofRecordID, "previous_state": "presentation-received", "state": "done"}, []string{"state_changes"}},
		{"a send to two", routeOOB, "org", []handlers.RecordChange{a, b},
			map[string]any{"state_changes": []any{
				map[string]any{"proof_record_id": a.ProofRecordID, "state": "request-sent"},
				map[string]any{"proof_record_id": b.ProofRecordID, "state": "request-sent"},
			}}, []string{"proof_record_id", "state"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			core, logs := observer.New(zap.InfoLevel)
			h := &Handler{requestLog: zap.New(core)}
			sw := &statusWriter{status: 201}
			h.logRequest(httptest.NewRequest("POST", "/", nil), tc.rt, tc.param, sw, tc.changes, time.Now(), time.Millisecond)
			if logs.Len() != 1 {
				t.Fatalf("%d lines", logs.Len())
			}
			fields := logs.All()[0].ContextMap()
			for k, v := range tc.want {
				if got := fields[k]; !reflect.DeepEqual(got, v) {
					t.Errorf("%s = %#v, want %#v", k, got, v)
				}
			}
			for _, k := range tc.absent {
				if v, ok := fields[k]; ok {
					t.Errorf("%s = %v, want none", k, v)
				}
			}
		})
	}
}
