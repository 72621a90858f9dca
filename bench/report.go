package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// report is the bench's output (-json prints it as is).
type report struct {
	Loadgen     string `json:"loadgen"`
	Conns       int    `json:"connections"`
	Rounds      int    `json:"rounds"`
	Duration    string `json:"duration"`
	Warmup      string `json:"warmup"`
	CPUs        int    `json:"cpus"`
	RecordBytes int    `json:"record_bytes"`
	RequestLog  string `json:"request_log"`
	// Storage is the file system of the server's storage directory (its
	// type, from /proc/mounts): tmpfs makes durable writes free.
	Storage    string                   `json:"storage_fs,omitempty"`
	LoadBefore string                   `json:"loadavg_before"`
	LoadAfter  string                   `json:"loadavg_after"`
	Seconds    float64                  `json:"seconds"`
	Order      []string                 `json:"order"`
	Targets    map[string]*targetReport `json:"targets"`
	// Ratios are taken within each round, then summarized; the budgets
	// are checked on the median.
	Ratios map[string]*ratio `json:"ratios"`
}

type targetReport struct {
	Label string `json:"label"`
	// Go is set when this target used the Go client while the others used
	// wrk (flows): compare it with nothing but itself.
	Go         bool     `json:"go_client,omitempty"`
	Rounds     []result `json:"rounds"`
	RPS        float64  `json:"rps_median"`
	CPUus      float64  `json:"server_cpu_us_per_request_median,omitempty"`
	P50us      float64  `json:"p50_us_median"`
	P99us      float64  `json:"p99_us_median"`
	PeakRSSKiB int64    `json:"peak_rss_kib"`
}

type ratio struct {
	Min    float64   `json:"min"`
	Median float64   `json:"median"`
	Max    float64   `json:"max"`
	Rounds []float64 `json:"rounds"`
	// Budget is the bound the median must meet: at least Budget, or at
	// most Budget when AtMost.
	Budget float64 `json:"budget,omitempty"`
	AtMost bool    `json:"at_most,omitempty"`
	Pass   *bool   `json:"pass,omitempty"`
	Note   string  `json:"note"`
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// roundFunc is a ratio within one round, of that round's results (get);
// false when a result it needs is missing.
type roundFunc func(get func(string) (result, bool)) (float64, bool)

// ratioDef is one reported ratio: per round, of the rounds' results. With
// more than one candidate in of (the same ratio for credo and for ACA-Py),
// it reports the candidate whose median is worse: a budget that holds for
// both agents holds when each agent's median meets it. (Taking the worse
// of the two within every round, then the median, would be biased low by
// the noise alone: the smaller of two noisy values is smaller on average
// than either.)
type ratioDef struct {
	name   string
	note   string
	budget float64
	atMost bool
	of     []roundFunc
}

// one is a ratio with a single candidate.
func one(f roundFunc) []roundFunc { return []roundFunc{f} }

// worseOf is a ratio reported for the worse of its candidates (ratioDef).
func worseOf(fs ...roundFunc) []roundFunc { return fs }

func rpsOf(a, b string) roundFunc {
	return func(get func(string) (result, bool)) (float64, bool) {
		ra, ok1 := get(a)
		rb, ok2 := get(b)
		if !ok1 || !ok2 || rb.rps() == 0 {
			return 0, false
		}
		return ra.rps() / rb.rps(), true
	}
}

// cpuOf is the inverse ratio of server CPU per request: what a's req/s
// over b's would be if the server's CPU alone decided them. It hardly
// moves with the machine's load, so it tells whether a missed req/s ratio
// is proofgate's cost or noise.
func cpuOf(a, b string) roundFunc {
	return func(get func(string) (result, bool)) (float64, bool) {
		ra, ok1 := get(a)
		rb, ok2 := get(b)
		if !ok1 || !ok2 || ra.ServerCPUus == 0 || rb.ServerCPUus == 0 {
			return 0, false
		}
		return rb.ServerCPUus / ra.ServerCPUus, true
	}
}

func p99Of(a, b string) roundFunc {
	return func(get func(string) (result, bool)) (float64, bool) {
		ra, ok1 := get(a)
		rb, ok2 := get(b)
		if !ok1 || !ok2 || rb.P99us == 0 {
			return 0, false
		}
		return ra.P99us / rb.P99us, true
	}
}

var ratioDefs = []ratioDef{
	{"ratio_pass_through_vs_respond", "req/s of a request proofgate passes on, over respond", 0.9, false, one(rpsOf("pass_through", "respond"))},
	{"ratio_bad_request_vs_respond", "req/s of the 400 path (key checked, body validated), over respond", 0.8, false, one(rpsOf("bad_request", "respond"))},
	{"ratio_bad_request_vs_respond_same_request", "req/s of the 400 path over respond answering the same POST (headers and body) without reading it: the handler's cost with the body's read and the larger answer, without what net/http spends taking a request with a body", 0, false, one(rpsOf("bad_request", "respond_post"))},
	{"ratio_handler_floor_vs_respond", "req/s of the floor handler (reads the 400's body, sends the 400's answer, nothing else) over respond: the most any handler taking this request and sending this answer can reach", 0, false, one(rpsOf("handler_floor", "respond"))},
	{"ratio_bad_request_vs_handler_floor", "req/s of the 400 path over the floor handler: what proofgate's work (key, validation, error, log, metrics) costs", 0, false, one(rpsOf("bad_request", "handler_floor"))},
	{"ratio_unauthorized_vs_respond", "req/s of the 401 path, over respond", 0.8, false, one(rpsOf("unauthorized", "respond"))},
	{"ratio_local_create_vs_durable_write", "local creates/s over durable writes/s at the same concurrency (a create's one durable write is its share of a group commit to the record journal)", 0.8, false, one(rpsOf("local_create", "durable_write"))},
	{"ratio_create_floor_vs_durable_write", "req/s of the create floor (reads a create's body, stores one record as a document of its own through Caddy's storage, sends a create's answer, nothing else) over durable writes/s: the most a handler that writes one file per create and answers as proofgate does can reach against the ceiling (proofgate does so with cluster or another storage module; a single instance on file_system storage group-commits its records to the record journal instead)", 0, false, one(rpsOf("create_floor", "durable_write"))},
	{"ratio_local_create_vs_create_floor", "req/s of local create over the create floor: proofgate's work on a create (key, validation, the request, invitation and record built, log, metrics) against the floor's, with the record journal's share of a group commit in place of the floor's file of its own", 0, false, one(rpsOf("local_create", "create_floor"))},
	{"ratio_local_create_short_vs_durable_write", "local creates with a short URL (one durable write: the short URL is part of the record)/s over durable writes/s", 0, false, one(rpsOf("local_create_short", "durable_write"))},
	{"ratio_upstream_accept_vs_reverse_proxy", "req/s of accept (one agent call) over reverse_proxy; the worse of credo and acapy by median", 0.9, false,
		worseOf(rpsOf("credo_accept", "reverse_proxy"), rpsOf("acapy_accept", "reverse_proxy"))},
	{"p99_ratio_upstream_accept_vs_reverse_proxy", "p99 of accept over p99 of reverse_proxy; the worse of credo and acapy by median", 1.2, true,
		worseOf(p99Of("credo_accept", "reverse_proxy"), p99Of("acapy_accept", "reverse_proxy"))},
	{"ratio_upstream_create_vs_reverse_proxy", "req/s of create (two agent calls, one durable write) over reverse_proxy; the worse of credo and acapy by median", 0.45, false,
		worseOf(rpsOf("credo_create", "reverse_proxy"), rpsOf("acapy_create", "reverse_proxy"))},
	{"ratio_upstream_create_vs_durable_write", "req/s of create through an agent over durable writes/s: its one durable write (the record's owner) bounds it; the worse of credo and acapy by median", 0, false,
		worseOf(rpsOf("credo_create", "durable_write"), rpsOf("acapy_create", "durable_write"))},
	{"ratio_credo_accept_vs_reverse_proxy", "", 0, false, one(rpsOf("credo_accept", "reverse_proxy"))},
	{"ratio_acapy_accept_vs_reverse_proxy", "", 0, false, one(rpsOf("acapy_accept", "reverse_proxy"))},
	{"ratio_credo_create_vs_reverse_proxy", "", 0, false, one(rpsOf("credo_create", "reverse_proxy"))},
	{"ratio_acapy_create_vs_reverse_proxy", "", 0, false, one(rpsOf("acapy_create", "reverse_proxy"))},
	{"cpu_ratio_pass_through_vs_respond", "server CPU per request of respond over pass-through's (load-independent)", 0, false, one(cpuOf("pass_through", "respond"))},
	{"cpu_ratio_bad_request_vs_respond", "server CPU per request of respond over the 400 path's", 0, false, one(cpuOf("bad_request", "respond"))},
	{"cpu_ratio_bad_request_vs_handler_floor", "server CPU per request of the floor handler over the 400 path's", 0, false, one(cpuOf("bad_request", "handler_floor"))},
	{"cpu_ratio_unauthorized_vs_respond", "server CPU per request of respond over the 401 path's", 0, false, one(cpuOf("unauthorized", "respond"))},
	{"cpu_ratio_local_create_vs_durable_write", "CPU of a durable write (the writers', doing nothing else) over the server's CPU per local create, which makes one", 0, false, one(cpuOf("local_create", "durable_write"))},
	{"cpu_ratio_local_create_vs_create_floor", "server CPU per request of the create floor over local create's", 0, false, one(cpuOf("local_create", "create_floor"))},
	{"cpu_ratio_upstream_accept_vs_reverse_proxy", "server CPU per request of reverse_proxy over accept's; the worse of credo and acapy by median", 0, false,
		worseOf(cpuOf("credo_accept", "reverse_proxy"), cpuOf("acapy_accept", "reverse_proxy"))},
	{"cpu_ratio_upstream_create_vs_reverse_proxy", "server CPU per request of reverse_proxy over create's; the worse of credo and acapy by median", 0, false,
		worseOf(cpuOf("credo_create", "reverse_proxy"), cpuOf("acapy_create", "reverse_proxy"))},
	{"ratio_short_url_vs_respond", "req/s of a short URL read (one storage read) over respond", 0, false, one(rpsOf("short_url", "respond"))},
	{"ratio_accept_conflict_vs_respond", "req/s of a local accept answered 409 (one storage read) over respond", 0, false, one(rpsOf("accept_conflict", "respond"))},
}

// perRound is f in each round that has what it needs, rounded to three
// places.
func (r *report) perRound(f roundFunc) []float64 {
	var vals []float64
	for i := range r.Rounds {
		get := func(name string) (result, bool) {
			t, ok := r.Targets[name]
			if !ok || i >= len(t.Rounds) {
				return result{}, false
			}
			return t.Rounds[i], true
		}
		if v, ok := f(get); ok {
			vals = append(vals, math.Round(v*1000)/1000)
		}
	}
	return vals
}

func (r *report) finish() {
	for _, t := range r.Targets {
		var rps, p50, p99, cpu []float64
		for _, x := range t.Rounds {
			rps, p50, p99 = append(rps, x.rps()), append(p50, x.P50us), append(p99, x.P99us)
			if x.ServerCPUus > 0 {
				cpu = append(cpu, x.ServerCPUus)
			}
		}
		t.RPS, t.P50us, t.P99us = median(rps), median(p50), median(p99)
		if len(cpu) > 0 {
			t.CPUus = median(cpu)
		}
	}
	r.Ratios = map[string]*ratio{}
	for _, d := range ratioDefs {
		var vals []float64
		for _, f := range d.of {
			v := r.perRound(f)
			if len(v) == 0 {
				continue
			}
			if vals == nil || (d.atMost && median(v) > median(vals)) || (!d.atMost && median(v) < median(vals)) {
				vals = v
			}
		}
		if len(vals) == 0 {
			continue
		}
		q := &ratio{Min: slices.Min(vals), Median: median(vals), Max: slices.Max(vals), Rounds: vals, Budget: d.budget, AtMost: d.atMost, Note: d.note}
		if d.budget > 0 {
			pass := q.Median >= d.budget
			if d.atMost {
				pass = q.Median <= d.budget
			}
			q.Pass = &pass
		}
		r.Ratios[d.name] = q
	}
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "%d rounds × (%s warm-up + %s) per target, %d connections, load generator %s, request log %s, storage on %s, %d CPUs, load %s → %s, %.0fs\n\n",
		r.Rounds, r.Warmup, r.Duration, r.Conns, r.Loadgen, r.RequestLog, r.Storage, r.CPUs, r.LoadBefore, r.LoadAfter, r.Seconds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\treq/s\tp50\tp99\tpeak RSS\tserver CPU/req\t")
	for _, name := range r.Order {
		t := r.Targets[name]
		label := t.Label
		if t.Go {
			label += " [Go client]"
		}
		cpu := "-"
		if t.CPUus > 0 {
			cpu = fmt.Sprintf("%.0fµs", t.CPUus)
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%s\t%s\t%.1f MiB\t%s\t\n", label, t.RPS, us(t.P50us), us(t.P99us), float64(t.PeakRSSKiB)/1024, cpu)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ratio\tmin\tmedian\tmax\tbudget\t")
	for _, d := range ratioDefs {
		q, ok := r.Ratios[d.name]
		if !ok {
			continue
		}
		budget := ""
		if q.Pass != nil {
			op := "≥"
			if q.AtMost {
				op = "≤"
			}
			mark := "ok"
			if !*q.Pass {
				mark = "MISSED"
			}
			budget = fmt.Sprintf("%s %.2f %s", op, q.Budget, mark)
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%s\t\n", d.name, q.Min, q.Median, q.Max, budget)
	}
	tw.Flush()
}

func us(v float64) string {
	return time.Duration(v * float64(time.Microsecond)).Round(time.Microsecond).String()
}

func numCPU() int { return runtime.NumCPU() }

// soak keeps the server under load for -soak, cycling through the chosen
// targets (default: local create and the 400 path) in windows of 30s, and
// prints the server's RSS after each window: memory must stay flat.
func soak(m *measurer, ts []target, logf func(string, ...any)) error {
	if m.o.only == "" {
		ts = slices.DeleteFunc(ts, func(t target) bool {
			return t.Name != "local_create" && t.Name != "bad_request" && t.Name != "credo_accept"
		})
	}
	pid := m.e.server.cmd.Process.Pid
	window := 30 * time.Second
	o := m.o
	o.duration = window
	m.o = o
	logf("soak: %s, windows of %s over %s", m.o.soak, window, names(ts))
	start := time.Now()
	fmt.Printf("%8s %12s %10s  %s\n", "elapsed", "RSS", "req/s", "target")
	fmt.Printf("%8s %9.1f MiB %10s  %s\n", "0s", float64(rssKiB(pid))/1024, "-", "(start)")
	for i := 0; time.Since(start) < m.o.soak; i++ {
		t := ts[i%len(ts)]
		res, err := m.run(t, m.o.duration)
		if err != nil {
			return err
		}
		if res.Errors > 0 {
			return fmt.Errorf("%s: %d errors, first: %s", t.Name, res.Errors, res.FirstError)
		}
		fmt.Printf("%8s %9.1f MiB %10.0f  %s\n", time.Since(start).Round(time.Second), float64(rssKiB(pid))/1024, res.rps(), t.Name)
	}
	return nil
}

func names(ts []target) string {
	var s []string
	for _, t := range ts {
		s = append(s, t.Name)
	}
	return strings.Join(s, ", ")
}
