package proofgate

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// TestFootprint serves bench's 400 request PG_FOOTPRINT_N times (default
// 200), each after the caches are emptied, through footprintServe, so that
// callgrind, told to count inside footprintServe only, gives the code and
// data cache lines one request touches (README, "Counting the 400's
// footprint"). PG_FOOTPRINT=proofgate runs the module, =floor the bench's
// floor handler's work. Without PG_FOOTPRINT, both run a few times, so a
// plain test run keeps the harness working (the module must still answer
// the request 400).
func TestFootprint(t *testing.T) {
	which := os.Getenv("PG_FOOTPRINT")
	if which == "" {
		for _, which := range []string{"proofgate", "floor"} {
			footprint(t, which, 3)
		}
		return
	}
	n := 200
	if s := os.Getenv("PG_FOOTPRINT_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	footprint(t, which, n)
}

// footprint serves the request n times through footprintServe, each after
// the caches are emptied.
func footprint(t *testing.T, which string, n int) {
	var serve func()
	switch which {
	case "proofgate":
		// An hour, not production's second: under callgrind a second
		// passes every few dozen requests, and the first 10 of each
		// would be logged, so the count would depend on the clock.
		serve = badRequestServer(t, time.Hour)
	case "floor":
		serve = floorServer(t)
	default:
		t.Fatalf("PG_FOOTPRINT=%q: want proofgate or floor", which)
	}
	// The first uses (one-time setup, and the 10 requests the log
	// keeps before it samples) stay out of the count.
	for range 20 {
		serve()
	}
	evict := cacheEvictor(2 << 20)
	for range n {
		evict()
		footprintServe(serve)
	}
}

//go:noinline
func footprintServe(serve func()) { serve() }
