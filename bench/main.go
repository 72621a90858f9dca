// Command bench measures proofgate against plain Caddy in one run, with the
// load generator, the server and the stub agent in separate processes:
//
//	go run ./bench [-rounds 4] [-duration 2s] [-warmup 1s] [-c 16] [-loadgen auto|wrk|go] [-json]
//
// The server is this program re-executed with -role server: a Caddy with
// the proofgate module, the same modules cmd/caddy links. It serves plain
// respond, a plain reverse_proxy to the stub agent, and proofgate with the
// local backend (as examples/Caddyfile), a credo backend and an acapy
// backend, each on a site of its own. The stub agent (-role stub) answers
// the agents' documented calls from memory. The load comes from wrk (Debian
// package; installed with apt-get where missing and possible) or, failing
// that, from this program as a separate Go client process (-role load);
// the full local accept (create, presentation over DIDComm, accept) always
// uses the Go client, since each iteration needs the previous answers.
//
// Every target runs once per round (after a warm-up) right after its
// reference (respond, the durable-write ceiling or reverse_proxy), which is
// measured again after the group and averaged; the rounds are interleaved
// and each starts one group later, so machine drift cancels. Ratios are
// taken within a round and reported as min/median/max. The
// durable-write ceiling is measured in the same rounds: parallel write +
// fsync + rename of record-sized files in the server's storage directory at
// the same concurrency. Two handlers of the bench's own, the floors
// (floor.go, createfloor.go), take the 400's and the create's requests and
// send their answers with nothing else (the create floor with its one
// durable write, a file of its own): what any handler pays there, so that
// proofgate's 400 over its floor is proofgate's own work.
//
// Everything listens on 127.0.0.1; the data directory is removed at the end.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"time"
)

// options are the flags of the orchestrating run.
type options struct {
	rounds     int
	duration   time.Duration
	warmup     time.Duration
	conns      int
	loadgen    string
	jsonOut    bool
	only       string
	soak       time.Duration
	keep       bool
	admin      string
	requestLog string
	dir        string
}

func main() {
	role := flag.String("role", "", "internal: server, stub or load (the bench re-executes itself); durable: print the durable-write ceiling of the directory given (with -c and -duration), for bench/independent.sh")
	var o options
	flag.IntVar(&o.rounds, "rounds", 4, "interleaved rounds (at least 3 for a median)")
	flag.DurationVar(&o.duration, "duration", 2*time.Second, "measured time per target and round (wrk: whole seconds)")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured load before each measurement")
	flag.IntVar(&o.conns, "c", 16, "concurrent connections (and parallel writers of the durable-write ceiling)")
	flag.StringVar(&o.loadgen, "loadgen", "auto", "load generator: wrk, go, or auto (wrk, installed if missing and possible, else go)")
	flag.BoolVar(&o.jsonOut, "json", false, "print the results as JSON instead of a table")
	flag.StringVar(&o.only, "only", "", "comma-separated target names to run (default: all)")
	flag.DurationVar(&o.soak, "soak", 0, "instead of the rounds: sustained load on create and 400 for this long, reporting the server's RSS")
	flag.BoolVar(&o.keep, "keep", false, "keep the data directory")
	flag.StringVar(&o.requestLog, "request-log", "sampled", "the server's log: sampled (proofgate's request_log sampling, as examples/Caddyfile and README's production setting), caddy-sampled (the same numbers in Caddy's log sampling), all (a line per request), off")
	flag.StringVar(&o.dir, "dir", "", "where the server's storage directory is made (default: the system's temporary directory); e.g. /dev/shm, a tmpfs, to see what a target costs when durable writes cost nothing")
	flag.StringVar(&o.admin, "admin", "off", "the server's admin address, e.g. 127.0.0.1:2019 to take profiles from /debug/pprof/ during a run")
	flag.Parse()

	var err error
	switch *role {
	case "":
		if !slices.Contains([]string{"sampled", "caddy-sampled", "all", "off"}, o.requestLog) {
			err = fmt.Errorf("-request-log: %q is not sampled, caddy-sampled, all or off", o.requestLog)
			break
		}
		err = orchestrate(o)
	case "server":
		err = serve(flag.Args())
	case "stub":
		err = stub(flag.Args())
	case "load":
		err = loadRole(flag.Args())
	case "durable":
		err = durableRole(flag.Args(), o.conns, o.duration)
	default:
		err = fmt.Errorf("unknown role %q", *role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
