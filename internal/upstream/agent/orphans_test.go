package agent

import (
	"context"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/proofgate/proofgate/internal/backend"
)

func TestOrphansSweepLogsAndCounts(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	storage := &certmagic.FileStorage{Path: t.TempDir()}
	o := NewOrphans(storage, "credo http://agent-1", zap.New(core))
	other := NewOrphans(storage, "credo http://agent-2", zap.NewNop())
	org := backend.Org{ID: "org-a", Tenant: "t"}
	o.Record(org, "thread-1", "record not readable", time.Now())
	o.Record(org, "", "timeout", time.Now())
	other.Record(org, "thread-x", "timeout", time.Now())

	left, err := o.Sweep(context.Background(), nil)
	if err != nil || len(left) != 2 {
		t.Fatalf("Sweep: %+v %v, want this agent's two orphans", left, err)
	}
	if got := gauge(t, "credo http://agent-1"); got != 2 {
		t.Errorf("gauge %v, want 2", got)
	}
	lines := logs.FilterMessageSnippet("orphaned proof requests at the agent").All()
	if len(lines) != 1 {
		t.Fatalf("sweep log lines: %+v", logs.All())
	}
	ctx := lines[0].ContextMap()
	if ctx["count"] != int64(2) || len(ctx["thread_ids"].([]any)) != 1 || len(ctx["unknown_thread_windows"].([]any)) != 1 {
		t.Errorf("sweep line %v", ctx)
	}
	if n := logs.FilterMessageSnippet("recorded as an orphan").Len(); n != 2 {
		t.Errorf("%d record lines, want 2", n)
	}

	// Gone orphans are forgotten; the gauge follows.
	left, err = o.Sweep(context.Background(), func(_ context.Context, d Orphan) (Orphan, bool, error) {
		return d, d.ThreadID == "thread-1", nil
	})
	if err != nil || len(left) != 1 || left[0].ThreadID != "" {
		t.Fatalf("after resolving: %+v %v", left, err)
	}
	if got := gauge(t, "credo http://agent-1"); got != 1 {
		t.Errorf("gauge %v, want 1", got)
	}

	// Start and Stop are safe to call in any order.
	o.Start(time.Hour, nil)
	o.Start(time.Hour, nil)
	o.Stop()
	o.Stop()
}

func gauge(t *testing.T, agent string) float64 {
	t.Helper()
	var m dto.Metric
	if err := orphanGauge.WithLabelValues(agent).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetGauge().GetValue()
}
