package proofgate

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestStateLabelBounded: the states of a verifier's record keep their own
// label; any other state an agent answers counts as "other", so that an
// agent cannot add series without bound.
func TestStateLabelBounded(t *testing.T) {
	for state, want := range map[string]string{
		"request-sent": "request-sent", "proposal-received": "proposal-received",
		"presentation-received": "presentation-received", "done": "done", "abandoned": "abandoned",
		"declined": "declined", "deleted": "deleted",
		"anything-the-agent-says-7f3a": "other", "": "other", "DONE": "other",
	} {
		if got := stateLabel(state); got != want {
			t.Errorf("stateLabel(%q) = %q, want %q", state, got, want)
		}
	}
	before := testutil.CollectAndCount(lifecycleMetrics.changes)
	for i := range 50 {
		lifecycleMetrics.changes.WithLabelValues(stateLabel("agent-state-" + string(rune('a'+i%26)) + string(rune('a'+i/26)))).Inc()
	}
	if grew := testutil.CollectAndCount(lifecycleMetrics.changes) - before; grew > 1 {
		t.Fatalf("50 unknown states added %d series, want at most one (other)", grew)
	}
}
