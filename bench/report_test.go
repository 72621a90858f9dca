package main

import (
	"slices"
	"testing"
)

// rounds builds a target's rounds from req/s and p99s (one second each).
func rounds(rps []float64, p99 []float64) *targetReport {
	t := &targetReport{}
	for i, x := range rps {
		t.Rounds = append(t.Rounds, result{Requests: int64(x), Seconds: 1, P99us: p99[i]})
	}
	return t
}

func TestWorseOfTakesTheWorseMedian(t *testing.T) {
	flat := []float64{1000, 1000, 1000}
	for _, c := range []struct {
		name         string
		credo, acapy []float64
		want         []float64 // the reported rounds
	}{
		// Each agent's median is 0.95; the smaller of the two within each
		// round would be 0.80, 0.80, 0.95: a median of 0.80 made by noise.
		{"equal medians, noise in different rounds", []float64{950, 800, 950}, []float64{800, 950, 950}, []float64{0.95, 0.8, 0.95}},
		{"ACA-Py worse", []float64{950, 960, 970}, []float64{900, 850, 990}, []float64{0.9, 0.85, 0.99}},
	} {
		rep := &report{Rounds: 3, Targets: map[string]*targetReport{
			"reverse_proxy": rounds(flat, []float64{100, 100, 100}),
			"credo_accept":  rounds(c.credo, []float64{100, 130, 110}),
			"acapy_accept":  rounds(c.acapy, []float64{120, 120, 90}),
		}}
		rep.finish()
		got := rep.Ratios["ratio_upstream_accept_vs_reverse_proxy"]
		if got == nil || !slices.Equal(got.Rounds, c.want) || got.Median != median(c.want) {
			t.Errorf("%s: %+v, want rounds %v", c.name, got, c.want)
		}
		if got.Pass == nil || *got.Pass != (got.Median >= 0.9) {
			t.Errorf("%s: pass %v for median %v", c.name, got.Pass, got.Median)
		}
		// p99 is at most: the higher median is the worse (credo 1.1, ACA-Py 1.2).
		if p := rep.Ratios["p99_ratio_upstream_accept_vs_reverse_proxy"]; p == nil || p.Median != 1.2 || !slices.Equal(p.Rounds, []float64{1.2, 1.2, 0.9}) {
			t.Errorf("%s: p99 %+v", c.name, p)
		}
	}
}
