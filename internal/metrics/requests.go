package metrics

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// requestKey names the series of one operation answered by one backend.
type requestKey struct{ op, backend string }

// requestSeries counts the answers of one operation by one backend: how
// many of each status, and the histogram of their durations. It is plain
// atomic words, side by side, read into requests_total and
// request_duration_seconds at each scrape (requestCollector), instead of
// a client_golang counter and histogram per label set. Every request on
// proofgate's routes records here, most of them answered in tens of
// microseconds (a 401, a 400). client_golang's pair reaches its counts
// through a chain of objects (the series, the counter, the histogram, its
// hot half, its bounds, its buckets); a record here touches two or three
// cache lines of one object: 1–1.8 µs less with the caches emptied before
// each request (BenchmarkBadRequestCold), 50 ns less in-process, and under
// load less than the bench resolves (README, "The 400 with the caches
// emptied").
type requestSeries struct {
	// sumNanos and the first buckets share the first cache line: a quick
	// answer's observation writes that line and its status's.
	sumNanos atomic.Uint64
	// buckets count durations up to latencyBounds[i], not cumulated;
	// the last is every longer one (+Inf).
	buckets [len(latencyBuckets) + 1]atomic.Uint64
	// codes counts statuses 100–599 at status-100; other counts the rest.
	codes [statusSpan]atomic.Uint64
	other atomic.Uint64
}

// statusSpan is how many statuses a series counts by code (100–599).
const statusSpan = 500

// latencyBounds are latencyBuckets as durations, compared with a request's
// duration without converting it to seconds.
var latencyBounds = func() (b [len(latencyBuckets)]time.Duration) {
	for i, s := range latencyBuckets {
		b[i] = time.Duration(math.Round(s * float64(time.Second)))
	}
	return b
}()

// observe counts one answer of status that took d.
func (s *requestSeries) observe(status int, d time.Duration) {
	if i := status - 100; i >= 0 && i < statusSpan {
		s.codes[i].Add(1)
	} else {
		s.other.Add(1)
	}
	if d < 0 {
		d = 0
	}
	s.sumNanos.Add(uint64(d))
	i := 0
	for i < len(latencyBounds) && d > latencyBounds[i] {
		i++
	}
	s.buckets[i].Add(1)
}

// earlyOps are the operations whose answers before a backend (401, 400,
// 403, …: what unauthenticated and malformed traffic gets) have their
// series in earlySeries, found by index rather than looked up by key.
var earlyOps = [...]string{OpSendOOB, OpAccept}

// earlySeries are the series of earlyOps[i] with NoBackend.
var earlySeries [len(earlyOps)]requestSeries

// servedSeries holds every other series, made on first use.
var servedSeries sync.Map // requestKey → *requestSeries

// ObserveRequest counts one answered request of operation op, served by
// the named backend (NoBackend if none), and its duration.
func ObserveRequest(op, backend string, status int, d time.Duration) {
	requestSeriesOf(op, backend).observe(status, d)
}

func requestSeriesOf(op, backend string) *requestSeries {
	if backend == "" || backend == NoBackend {
		backend = NoBackend
		if i := slices.Index(earlyOps[:], op); i >= 0 {
			return &earlySeries[i]
		}
	}
	k := requestKey{op, backend}
	if s, ok := servedSeries.Load(k); ok {
		return s.(*requestSeries)
	}
	s, _ := servedSeries.LoadOrStore(k, new(requestSeries))
	return s.(*requestSeries)
}

var (
	requestsDesc = prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, "requests_total"),
		"Requests to proofgate's routes, by operation, backend (its configured name, or none when answered before one was chosen), HTTP status code and class (2xx, 3xx, 4xx, 5xx).",
		[]string{"operation", "backend", "code", "class"}, nil)
	requestDurationDesc = prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, "request_duration_seconds"),
		"Time to answer proofgate's routes, by operation and backend (agent calls included).",
		[]string{"operation", "backend"}, nil)
)

// codeLabels are the code label values of statuses 100–599, formatted
// once.
var codeLabels = func() (l [statusSpan]string) {
	for i := range l {
		l[i] = strconv.Itoa(100 + i)
	}
	return l
}()

// requestCollector exports every request series that has counted a
// request: requests_total by status, request_duration_seconds.
type requestCollector struct{}

func (requestCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- requestsDesc
	ch <- requestDurationDesc
}

func (requestCollector) Collect(ch chan<- prometheus.Metric) {
	for i := range earlySeries {
		earlySeries[i].collect(ch, earlyOps[i], NoBackend)
	}
	servedSeries.Range(func(k, s any) bool {
		s.(*requestSeries).collect(ch, k.(requestKey).op, k.(requestKey).backend)
		return true
	})
}

// collect sends s's metrics, the series of op answered by backend, none
// if it has counted nothing yet (a series appears once counted, as with
// client_golang's vectors).
func (s *requestSeries) collect(ch chan<- prometheus.Metric, op, backend string) {
	// The histogram's count is its buckets' sum, so that it always
	// agrees with them; the status counts and the sum are read after it
	// and may include a request still being recorded.
	var count uint64
	cumulative := make(map[float64]uint64, len(latencyBuckets))
	for i, bound := range latencyBuckets {
		count += s.buckets[i].Load()
		cumulative[bound] = count
	}
	count += s.buckets[len(latencyBuckets)].Load()
	if count == 0 {
		return
	}
	for i := range s.codes {
		if n := s.codes[i].Load(); n > 0 {
			ch <- prometheus.MustNewConstMetric(requestsDesc, prometheus.CounterValue, float64(n), op, backend, codeLabels[i], Class(100+i))
		}
	}
	if n := s.other.Load(); n > 0 {
		ch <- prometheus.MustNewConstMetric(requestsDesc, prometheus.CounterValue, float64(n), op, backend, "other", "other")
	}
	sum := float64(s.sumNanos.Load()) / float64(time.Second)
	ch <- prometheus.MustNewConstHistogram(requestDurationDesc, count, sum, cumulative, op, backend)
}

// ObserveAgentCall records one call to an upstream agent: agent names it
// (type and base URL), method and path are the call's (ids in the path
// are replaced by {id}), status is the answer's status (0 when none came,
// err then says why).
func ObserveAgentCall(agent, method, path string, status int, d time.Duration) {
	outcome := "error"
	if status > 0 {
		outcome = Class(status)
	}
	agentCallObserver(agent, method, path, outcome).Observe(d.Seconds())
}

// agentCallObservers holds the histogram of each (agent, method, path
// template, outcome) once resolved: the label set is bounded (configured
// agents, the calls proofgate makes), and looking one up by a key built
// on the stack costs no allocation, unlike WithLabelValues on every call.
//
// forgotten holds the agents ForgetAgent removed that no config has used
// since (UseAgent): a call under way when its config was cleaned up (a
// long grace period) ends after ForgetAgent, and its observation must not
// bring the agent's series back for good.
var agentCallObservers = struct {
	sync.RWMutex
	m         map[string]prometheus.Observer
	forgotten map[string]bool
}{m: map[string]prometheus.Observer{}, forgotten: map[string]bool{}}

// discard is the observer of a forgotten agent's late calls.
var discard = prometheus.ObserverFunc(func(float64) {})

func agentCallObserver(agent, method, path, outcome string) prometheus.Observer {
	var buf [256]byte
	key := append(buf[:0], agent...)
	key = append(key, 0)
	key = append(key, method...)
	key = append(key, ' ')
	key = appendCallPath(key, path)
	key = append(key, 0)
	key = append(key, outcome...)
	agentCallObservers.RLock()
	o, ok := agentCallObservers.m[string(key)]
	agentCallObservers.RUnlock()
	if ok {
		return o
	}
	// Made under the lock, so that ForgetAgent cannot run between the
	// series' creation and its caching and leave either behind.
	agentCallObservers.Lock()
	defer agentCallObservers.Unlock()
	if o, ok := agentCallObservers.m[string(key)]; ok {
		return o
	}
	if agentCallObservers.forgotten[agent] {
		return discard
	}
	o = agentCalls.WithLabelValues(agent, method+" "+CallPath(path), outcome)
	agentCallObservers.m[string(key)] = o
	return o
}

// ForgetAgent removes every agent_call_duration_seconds series of agent,
// and the cached observers that would feed them: the agent is no longer
// configured (a reload removed it). Should it come back, its series start
// anew.
func ForgetAgent(agent string) {
	agentCallObservers.Lock()
	defer agentCallObservers.Unlock()
	agentCallObservers.forgotten[agent] = true
	prefix := agent + "\x00"
	for k := range agentCallObservers.m {
		if strings.HasPrefix(k, prefix) {
			delete(agentCallObservers.m, k)
		}
	}
	agentCalls.DeletePartialMatch(prometheus.Labels{"agent": agent})
}

// UseAgent says a config calls agent (again): its calls are counted,
// even after an earlier ForgetAgent.
func UseAgent(agent string) {
	agentCallObservers.Lock()
	defer agentCallObservers.Unlock()
	delete(agentCallObservers.forgotten, agent)
}

// IfAgentUsed runs fn unless agent was forgotten and not used since, so
// that fn may set one of the agent's series (the caller's own gauge)
// without racing ForgetAgent: a series set here is there when
// ForgetAgent returns, to be removed by its caller after it.
func IfAgentUsed(agent string, fn func()) {
	agentCallObservers.RLock()
	defer agentCallObservers.RUnlock()
	if !agentCallObservers.forgotten[agent] {
		fn()
	}
}

// CallPath replaces the segments of an agent path that name things (ids,
// tenants, registry ids) with {id}, so the label stays bounded:
// /present-proof-2.0/records/{id}/verify-presentation. A segment is kept
// only when it is a word of the agents' APIs: lowercase letters and
// hyphens, at most 40 bytes, not shaped like a UUID (one of letters a–f
// alone has no digit), or one of the few API words with digits. Ids come
// from callers and provers, so anything else is one.
func CallPath(path string) string {
	return string(appendCallPath(make([]byte, 0, len(path)+8), path))
}

// appendCallPath appends CallPath(path) to dst.
func appendCallPath(dst []byte, path string) []byte {
	for i := 0; ; i++ {
		seg, rest, more := strings.Cut(path, "/")
		if i > 0 {
			dst = append(dst, '/')
		}
		if apiWord(seg) {
			dst = append(dst, seg...)
		} else {
			dst = append(dst, "{id}"...)
		}
		if !more {
			return dst
		}
		path = rest
	}
}

// apiWord reports whether a path segment is a word of an agent's API
// rather than a name of something.
func apiWord(seg string) bool {
	if knownSegment(seg) || seg == "" {
		return true
	}
	if len(seg) > 40 || len(seg) == 36 && seg[8] == '-' && seg[13] == '-' && seg[18] == '-' && seg[23] == '-' {
		return false
	}
	for i := 0; i < len(seg); i++ {
		if c := seg[i]; (c < 'a' || c > 'z') && c != '-' {
			return false
		}
	}
	return true
}

// knownSegment: path segments of the agents' APIs that contain digits.
func knownSegment(s string) bool {
	return s == "present-proof-2.0" || s == "issue-credential-2.0" || s == "v1" || s == "v2"
}
