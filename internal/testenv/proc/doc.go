// Package proc is what the tests' agent launchers (internal/testenv/acapy,
// internal/testenv/credo) share about the processes they start: each in a
// process group of its own, killed with its children when the test ends
// (or by the kernel when the test binary dies first), and the tail of its
// output kept for the failure message.
package proc
