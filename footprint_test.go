package proofgate

import (
	"io"
	"net/http"
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
// floor handler's work. Skipped unless PG_FOOTPRINT is set: it measures,
// it asserts nothing a plain test run needs.
func TestFootprint(t *testing.T) {
	which := os.Getenv("PG_FOOTPRINT")
	if which == "" {
		t.Skip("set PG_FOOTPRINT=proofgate or floor and run under callgrind")
	}
	n := 200
	if s := os.Getenv("PG_FOOTPRINT_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	var serve func()
	switch which {
	case "proofgate":
		// An hour, not production's second: under callgrind a second
		// passes every few dozen requests, and the first 10 of each
		// would be logged, so the count would depend on the clock.
		serve = badRequestServer(t, time.Hour)
	case "floor":
		r, w, reset := badRequestExchange()
		serve = func() {
			reset()
			var buf [512]byte
			if _, err := io.ReadFull(r.Body, buf[:r.ContentLength]); err != nil {
				t.Fatal(err)
			}
			h := w.Header()
			h["Content-Type"] = []string{"application/json; charset=utf-8"}
			h["Cache-Control"] = []string{"no-store"}
			h["X-Content-Type-Options"] = []string{"nosniff"}
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(floorAnswerForTest)) //nolint:errcheck // the writer drops it
		}
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
