// Package benchutil helps Go benchmarks report numbers that survive a
// busy machine.
package benchutil

import (
	"syscall"
	"testing"
	"time"
)

// CPUPerOp reports, when the returned function is called at the end of
// the benchmark, the process's CPU time (user + system, every thread: GC
// included) per iteration as "cpu-ns/op". ns/op is wall time and grows
// with whatever else runs on the machine; CPU time grows much less, so on
// a shared machine it is the number to compare with a budget.
func CPUPerOp(b *testing.B) (stop func()) {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
