package proofgate

import (
	"context"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/proofgate/proofgate/handlers"
	"github.com/proofgate/proofgate/internal/backend"
)

// TestChangeLogLine: a change an API request caused goes on that
// request's line (collected in its RequestChanges); one committed without
// a request, or after the request's line was written, gets a line of its
// own on the changes logger.
func TestChangeLogLine(t *testing.T) {
	change := backend.StateChange{PreviousState: "presentation-received",
		Record: backend.ProofRecord{ID: "9b2c6f0e-1d3a-4c5b-8e7f-0a1b2c3d4e5f", State: "done"}}
	for _, tc := range []struct {
		name    string
		request bool // the change's context is a request's
		closed  bool // its line was written before the commit
		ownLine bool
	}{
		{"in a request", true, false, false},
		{"after the request's line", true, true, true},
		{"no request", false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			core, logs := observer.New(zap.InfoLevel)
			sink := &changeSink{logger: zap.New(core)}
			ctx := context.Background()
			var req *handlers.RequestChanges
			if tc.request {
				req = new(handlers.RequestChanges)
				ctx = handlers.WithChanges(ctx, req)
			}
			st, err := sink.Stage(ctx, change)
			if err != nil {
				t.Fatal(err)
			}
			if tc.closed {
				req.Close()
			}
			st.Commit()
			got := req.Close()
			if tc.ownLine {
				if logs.FilterMessage("proof record state changed").FilterField(zap.String("state", "done")).Len() != 1 || len(got) != 0 {
					t.Fatalf("want a line of its own: lines %v, request's changes %v", logs.All(), got)
				}
				return
			}
			want := handlers.RecordChange{ProofRecordID: change.Record.ID, PreviousState: "presentation-received", State: "done"}
			if logs.Len() != 0 || len(got) != 1 || got[0] != want {
				t.Fatalf("want it on the request's line: lines %v, request's changes %v", logs.All(), got)
			}
		})
	}
}
