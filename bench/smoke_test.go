package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBenchRunsEveryTarget runs the whole bench once, as briefly as it
// goes (one round, 300 ms a target, the Go client), so that a change that
// breaks a target, its reference check or a ratio fails here rather than
// in someone's measurement. Nothing is timed: it checks that every target
// answered without an error and every ratio got a value.
func TestBenchRunsEveryTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the bench (about 30 s)")
	}
	bin := filepath.Join(t.TempDir(), "bench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-rounds", "1", "-duration", "300ms", "-warmup", "0s", "-c", "4", "-loadgen", "go", "-json", "-dir", t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("bench: %v\n%s", err, stderr)
	}
	var rep report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("bench -json: %v\n%s", err, out)
	}
	for _, name := range rep.Order {
		tr := rep.Targets[name]
		if len(tr.Rounds) != 1 || tr.Rounds[0].Requests == 0 || tr.Rounds[0].Errors != 0 {
			t.Errorf("%s: %+v", name, tr.Rounds)
		}
	}
	for _, d := range ratioDefs {
		if r, ok := rep.Ratios[d.name]; !ok || len(r.Rounds) != 1 || r.Median <= 0 {
			t.Errorf("ratio %s: %+v", d.name, r)
		}
	}
}
