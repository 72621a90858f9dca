package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Request bodies of the targets.
const (
	indyCreate = `{"isShortenUrl":false,"proofFormats":{"indy":{"name":"age","version":"1.0","requested_attributes":{"a":{"name":"name","restrictions":[{"cred_def_id":"WgWxqztrNooG92RXvxSTWv:3:CL:20:tag"}]}},"requested_predicates":{"p":{"name":"age","p_type":">=","p_value":18}}}}}`
	badRequest = `{"isShortenUrl":1,"proofFormats":{"indy":{}}}`
)

// targets builds what is measured, creating the records and the short URL
// that some of them need.
func (e *env) targets() ([]target, error) {
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	jsonKey := map[string]string{"Content-Type": "application/json", "X-API-Key": benchKey}
	key := map[string]string{"X-API-Key": benchKey}
	oob := func(port int, org string) string {
		return e.url(port, "/orgs/"+org+"/proofs/oob?requestType=indy")
	}
	// create makes a record and returns its answer and the answer's data.
	create := func(port int, org, body string) (*answer, map[string]any, error) {
		a, err := fetchAnswer(client, target{Method: http.MethodPost, URL: oob(port, org), Header: jsonKey, Body: body})
		if err != nil {
			return nil, nil, err
		}
		if a.Status != http.StatusCreated {
			return nil, nil, fmt.Errorf("status %d: %s", a.Status, a.Body)
		}
		var out struct {
			Data map[string]any `json:"data"`
		}
		return a, out.Data, json.Unmarshal(a.Body, &out)
	}
	shortBody := strings.Replace(indyCreate, `"isShortenUrl":false`, `"isShortenUrl":true`, 1)
	_, short, err := create(e.ports.local, orgLocal, shortBody)
	if err != nil {
		return nil, fmt.Errorf("creating a short URL: %v", err)
	}
	// The local record's answer is also the create floor's (createfloor.go).
	created, local, err := create(e.ports.local, orgLocal, indyCreate)
	if err != nil {
		return nil, fmt.Errorf("creating a local record: %v", err)
	}
	if err := e.writeCreateFloorAnswer(created); err != nil {
		return nil, err
	}
	_, credo, err := create(e.ports.credo, orgCredo, indyCreate)
	if err != nil {
		return nil, fmt.Errorf("creating a credo record: %v", err)
	}
	_, acapy, err := create(e.ports.acapy, orgACAPy, indyCreate)
	if err != nil {
		return nil, fmt.Errorf("creating an acapy record: %v", err)
	}
	shortPath := strings.TrimPrefix(short["invitationUrl"].(string), e.url(e.ports.local, ""))
	accept := func(port int, rec map[string]any) string {
		return e.url(port, "/proofs/"+rec["proofRecordId"].(string)+"/accept-presentation")
	}
	// Each group follows its reference, and the rounds rotate the list as
	// a ring, so a target is always measured within seconds of the
	// reference its ratio divides by.
	ts := []target{
		{Name: "respond", Label: "caddy respond", Method: "GET", URL: e.url(e.ports.respond, "/"), Status: 200},
		// respond answering the 400's very request (POST, its headers and
		// body), left unread: what net/http and Caddy spend on that request
		// before any handler runs. The 400 over it also pays for reading the
		// body and for its larger answer; handler_floor takes those out.
		// Both take the 400's path and query too (longer to parse than /).
		{Name: "respond_post", Label: "caddy respond, the 400's request", Method: "POST", URL: oob(e.ports.respond, orgLocal), Header: jsonKey, Body: badRequest, Status: 200},
		// The floor: a handler that reads the 400's body to its end and
		// sends the 400's very answer (checked below), doing nothing else.
		// What proofgate's 400 costs beyond it is proofgate's work.
		{Name: "handler_floor", Label: "floor: body read, the 400's answer", Method: "POST", URL: oob(e.ports.floor, orgLocal), Header: jsonKey, Body: badRequest, Status: 400},
		{Name: "pass_through", Label: "proofgate pass-through", Method: "GET", URL: e.url(e.ports.local, "/elsewhere"), Status: 200},
		{Name: "unauthorized", Label: "proofgate 401 (no key)", Method: "POST", URL: oob(e.ports.local, orgLocal),
			Header: map[string]string{"Content-Type": "application/json"}, Body: indyCreate, Status: 401},
		{Name: "bad_request", Label: "proofgate 400 (validation)", Method: "POST", URL: oob(e.ports.local, orgLocal), Header: jsonKey, Body: badRequest, Status: 400},
		{Name: "short_url", Label: "short URL read (302)", Method: "GET", URL: e.url(e.ports.local, shortPath), Status: 302},
		{Name: "accept_conflict", Label: "local accept 409", Method: "POST", URL: accept(e.ports.local, local), Header: key, Status: 409},
		{Name: "durable_write", Label: "durable write (write+fsync+rename; CPU: the writers')", Durable: true},
		// The create floor: a handler that reads a create's body, stores one
		// record through Caddy's storage and sends a create's answer
		// (checked below), doing nothing else. Over the durable-write
		// ceiling it is what the HTTP exchange adds to a bare write; a
		// local create over it is proofgate's work.
		{Name: "create_floor", Label: "floor: create's body read, one durable write, its answer", Method: "POST", URL: e.url(e.ports.createFloor, "/"), Header: jsonKey, Body: indyCreate, Status: 201},
		{Name: "local_create", Label: "local create", Method: "POST", URL: oob(e.ports.local, orgLocal), Header: jsonKey, Body: indyCreate, Status: 201},
		{Name: "local_create_short", Label: "local create + short URL", Method: "POST", URL: oob(e.ports.local, orgLocal), Header: jsonKey, Body: shortBody, Status: 201},
		{Name: "local_accept_flow", Label: "local accept flow (create, DIDComm, accept)", Flow: "local_accept", Base: e.url(e.ports.local, "")},
		{Name: "reverse_proxy", Label: "caddy reverse_proxy → stub", Method: "GET", URL: e.url(e.ports.proxy, "/didcomm/proofs/"+credo["proofRecordId"].(string)),
			Header: map[string]string{"Authorization": "Bearer " + credoJWT}, Status: 200},
		{Name: "credo_accept", Label: "credo accept (1 agent call)", Method: "POST", URL: accept(e.ports.credo, credo), Header: key, Status: 200},
		{Name: "acapy_accept", Label: "acapy accept (1 agent call)", Method: "POST", URL: accept(e.ports.acapy, acapy), Header: key, Status: 200},
		{Name: "credo_create", Label: "credo create (2 agent calls)", Method: "POST", URL: oob(e.ports.credo, orgCredo), Header: jsonKey, Body: indyCreate, Status: 201},
		{Name: "acapy_create", Label: "acapy create (2 agent calls)", Method: "POST", URL: oob(e.ports.acapy, orgACAPy), Header: jsonKey, Body: indyCreate, Status: 201},
	}
	// Every target answers as expected once before any load.
	for _, t := range ts {
		if t.Durable {
			continue
		}
		if err := requester(client, t)(); err != nil {
			return nil, fmt.Errorf("%s: %v", t.Name, err)
		}
	}
	named := func(name string) target {
		return ts[slices.IndexFunc(ts, func(t target) bool { return t.Name == name })]
	}
	if err := sameAnswer(client, named("bad_request"), named("handler_floor")); err != nil {
		return nil, fmt.Errorf("the floor handler no longer answers as proofgate's 400 (update floorAnswer in floor.go): %v", err)
	}
	// A fresh create, not the one the floor was given: the floor's fixed
	// answer must stand for every create, whose ids (and so, by a digit or
	// two, lengths) differ.
	fresh, err := fetchAnswer(client, named("local_create"))
	if err != nil {
		return nil, err
	}
	floor, err := fetchAnswer(client, named("create_floor"))
	if err != nil {
		return nil, err
	}
	if err := sameShape(fresh, floor); err != nil {
		return nil, fmt.Errorf("the create floor does not answer as a local create: %v", err)
	}
	return ts, nil
}

// measurer runs one target once: warm-up, then the measured period.
type measurer struct {
	o    options
	wrk  string
	e    *env
	size int
}

func (m *measurer) measure(t target) (result, int64, error) {
	stop := make(chan struct{})
	pid := m.e.server.cmd.Process.Pid
	peak := sampleRSS(pid, stop)
	if m.o.warmup > 0 {
		if _, err := m.run(t, m.o.warmup); err != nil {
			close(stop)
			<-peak
			return result{}, 0, err
		}
	}
	stubPid, cpuPid := m.e.stubAgent.cmd.Process.Pid, pid
	if t.Durable {
		// The writers run in this process: their CPU per write stands in
		// the server's column, the cost a create's one durable write has
		// when nothing else is done (the RSS stays the server's).
		cpuPid = os.Getpid()
	}
	cpu0, stub0 := cpuTicks(cpuPid), cpuTicks(stubPid)
	res, err := m.run(t, m.o.duration)
	cpu1, stub1 := cpuTicks(cpuPid), cpuTicks(stubPid)
	close(stop)
	if res.Requests > 0 {
		res.ServerCPUus = float64(cpu1-cpu0) * 1e6 / clockTicks / float64(res.Requests)
		if !t.Durable {
			res.StubCPUus = float64(stub1-stub0) * 1e6 / clockTicks / float64(res.Requests)
		}
	}
	return res, <-peak, err
}

func (m *measurer) run(t target, d time.Duration) (result, error) {
	if t.Durable {
		return durableWrites(filepath.Join(m.e.data, "bench-durable"), m.size, m.o.conns, d), nil
	}
	if m.wrk != "" && t.Flow == "" {
		return wrkRun(m.wrk, m.e.root, t, m.o.conns, d)
	}
	spec, _ := json.Marshal(loadSpec{Target: t, Conns: m.o.conns, Duration: d})
	self, err := os.Executable()
	if err != nil {
		return result{}, err
	}
	cmd := exec.Command(self, "-role", "load", string(spec))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return result{}, fmt.Errorf("load process: %v", err)
	}
	var res result
	return res, json.Unmarshal(out, &res)
}

// measureInto measures t once and appends the result to its report.
func (m *measurer) measureInto(rep *report, t target) (result, error) {
	res, peak, err := m.measure(t)
	if err != nil {
		return res, fmt.Errorf("%s: %v", t.Name, err)
	}
	if res.Errors > 0 {
		return res, fmt.Errorf("%s: %d errors, first: %s", t.Name, res.Errors, res.FirstError)
	}
	tr := rep.Targets[t.Name]
	tr.Rounds = append(tr.Rounds, res)
	tr.PeakRSSKiB = max(tr.PeakRSSKiB, peak)
	m.e.logf("  %-45s %9.0f/s  p50 %8.0fµs  p99 %8.0fµs  server CPU %5.0fµs/req  stub agent CPU %4.0fµs/req", t.Label, res.rps(), res.P50us, res.P99us, res.ServerCPUus, res.StubCPUus)
	return res, nil
}

// combine averages two measurements of one reference (before and after
// its group): the requests and time add up, the percentiles and the CPU
// per request are averaged.
func combine(a, b result) result {
	return result{
		Requests: a.Requests + b.Requests, Errors: a.Errors + b.Errors, Seconds: a.Seconds + b.Seconds,
		P50us: (a.P50us + b.P50us) / 2, P99us: (a.P99us + b.P99us) / 2, ServerCPUus: (a.ServerCPUus + b.ServerCPUus) / 2,
		StubCPUus: (a.StubCPUus + b.StubCPUus) / 2,
	}
}

// groupTargets splits the targets into runs that start with a reference
// (respond, durable_write, reverse_proxy): a group is its reference and
// the targets that follow it.
func groupTargets(ts []target) [][]target {
	var groups [][]target
	for _, t := range ts {
		if len(groups) == 0 || t.Name == "respond" || t.Name == "durable_write" || t.Name == "reverse_proxy" {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], t)
	}
	return groups
}

func orchestrate(o options) error {
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	if o.rounds < 1 || o.conns < 1 || o.duration <= 0 {
		return errors.New("-rounds, -c and -duration must be positive")
	}
	gen := "go"
	wrk := ""
	switch o.loadgen {
	case "auto", "wrk":
		if wrk = findWrk(logf); wrk != "" {
			gen = "wrk"
		} else if o.loadgen == "wrk" {
			return errors.New("wrk is not installed and could not be installed")
		}
	case "go":
	default:
		return fmt.Errorf("-loadgen: %q is not wrk, go or auto", o.loadgen)
	}
	e, err := startEnv(o.dir, o.admin, o.requestLog, logf)
	if e != nil {
		defer e.close(o.keep)
	}
	if err != nil {
		return err
	}
	ts, err := e.targets()
	if err != nil {
		return err
	}
	if o.only != "" {
		want := strings.Split(o.only, ",")
		ts = slices.DeleteFunc(ts, func(t target) bool { return !slices.Contains(want, t.Name) })
		if len(ts) == 0 {
			return fmt.Errorf("-only %q matches no target", o.only)
		}
	}
	m := &measurer{o: o, wrk: wrk, e: e, size: e.recordSize()}
	if o.soak > 0 {
		return soak(m, ts, logf)
	}

	rep := &report{
		Loadgen: gen, Conns: o.conns, Rounds: o.rounds, Duration: o.duration.String(), Warmup: o.warmup.String(),
		RecordBytes: m.size, LoadBefore: loadavg(), CPUs: numCPU(), Targets: map[string]*targetReport{}, RequestLog: o.requestLog, Storage: fsType(e.data),
	}
	for _, t := range ts {
		rep.Order = append(rep.Order, t.Name)
		rep.Targets[t.Name] = &targetReport{Label: t.Label, Go: t.Flow != "" && gen == "wrk"}
	}
	started := time.Now()
	groups := groupTargets(ts)
	for r := range o.rounds {
		logf("round %d/%d (load %s)", r+1, o.rounds, loadavg())
		// Each round starts one group later, so that no group always
		// runs first. Within a group the reference is measured before
		// and after its targets, and the two are averaged, so drift
		// during the group cancels too.
		for i := range groups {
			g := groups[(i+r)%len(groups)]
			var refRuns []result
			for j, t := range g {
				res, err := m.measureInto(rep, t)
				if err != nil {
					return err
				}
				if j == 0 && len(g) > 1 {
					refRuns = append(refRuns, res)
				}
			}
			if len(refRuns) == 1 {
				res, err := m.measureInto(rep, g[0])
				if err != nil {
					return err
				}
				tr := rep.Targets[g[0].Name]
				tr.Rounds = tr.Rounds[:len(tr.Rounds)-2]
				tr.Rounds = append(tr.Rounds, combine(refRuns[0], res))
			}
		}
	}
	rep.Seconds = time.Since(started).Seconds()
	rep.LoadAfter = loadavg()
	rep.finish()
	if o.jsonOut {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.print(os.Stdout)
	return nil
}
