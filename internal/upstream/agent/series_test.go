package agent

import (
	"context"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/proofgate/proofgate/internal/metrics"
)

// hasSeries reports whether the metric family name has a series whose
// agent label is agent.
func hasSeries(t *testing.T, name, agent string) bool {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := metrics.Register(reg); err != nil {
		t.Fatal(err)
	}
	if err := RegisterMetrics(reg); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "agent" && l.GetValue() == agent {
					return true
				}
			}
		}
	}
	return false
}

// A reload provisions the new config before it cleans up the old one: an
// agent both name keeps its series; the series of an agent only the old
// one named go when it is cleaned up.
func TestAgentSeriesFollowConfigs(t *testing.T) {
	storage := &certmagic.FileStorage{Path: t.TempDir()}
	connect := func(url string) (*Config, string) {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		t.Cleanup(cancel)
		c := &Config{URL: url}
		if err := c.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		parts := c.Connect(ctx, "credo", nil, storage)
		metrics.ObserveAgentCall(parts.Client.agent, "POST", "/proofs/create-request-oob", 200, time.Millisecond)
		orphanGauge.WithLabelValues(parts.Client.agent).Set(1)
		return c, parts.Client.agent
	}
	const orphans, calls = "caddy_proofgate_upstream_orphans", "caddy_proofgate_agent_call_duration_seconds"

	oldKept, kept := connect("http://127.0.0.1:7301")
	oldGone, gone := connect("http://127.0.0.1:7302")
	newKept, _ := connect("http://127.0.0.1:7301") // the reload
	for _, c := range []*Config{oldKept, oldGone} {
		if err := c.Cleanup(); err != nil {
			t.Fatal(err)
		}
	}
	if err := oldGone.Cleanup(); err != nil { // a second Cleanup is harmless
		t.Fatal(err)
	}
	for _, tc := range []struct {
		agent string
		want  bool
	}{{kept, true}, {gone, false}} {
		if got := hasSeries(t, orphans, tc.agent); got != tc.want {
			t.Errorf("upstream_orphans{agent=%q} exported: %v, want %v", tc.agent, got, tc.want)
		}
		if got := hasSeries(t, calls, tc.agent); got != tc.want {
			t.Errorf("agent_call_duration_seconds{agent=%q} exported: %v, want %v", tc.agent, got, tc.want)
		}
	}
	if err := newKept.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if hasSeries(t, orphans, kept) || hasSeries(t, calls, kept) {
		t.Errorf("series of %q left after its last config was cleaned up", kept)
	}
	// A call under way at the Cleanup (a long grace period) ends, and an
	// orphan sweep with it: neither brings the series back.
	metrics.ObserveAgentCall(kept, "POST", "/proofs/create-request-oob", 200, time.Millisecond)
	setOrphans(kept, 3)
	if hasSeries(t, orphans, kept) || hasSeries(t, calls, kept) {
		t.Errorf("a call that ended after the last Cleanup brought back series of %q", kept)
	}
	// Used again by a config: counted again.
	again, _ := connect("http://127.0.0.1:7301")
	setOrphans(kept, 1)
	if !hasSeries(t, orphans, kept) || !hasSeries(t, calls, kept) {
		t.Errorf("no series of %q once a config uses it again", kept)
	}
	if err := again.Cleanup(); err != nil {
		t.Fatal(err)
	}
}
