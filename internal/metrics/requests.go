package metrics

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// requestKey names one request series; its collectors are looked up once.
type requestKey struct {
	op, backend string
	status      int
}

type requestSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

var requestCache sync.Map // requestKey → requestSeries

// earlyOps are the operations whose answers before a backend (401, 400,
// 403, …: what unauthenticated and malformed traffic gets) have their
// series in earlySeries, found by index rather than by hashing the key.
var earlyOps = [...]string{OpSendOOB, OpAccept}

// earlySeries holds the series of earlyOps[i] with NoBackend and status
// 100+j at [i][j], each resolved on first use.
var earlySeries [len(earlyOps)][500]atomic.Pointer[*requestSeries]

// ObserveRequest counts one answered request of operation op, served by
// the named backend (NoBackend if none), and its duration.
func ObserveRequest(op, backend string, status int, d time.Duration) {
	rs := requestSeriesOf(op, backend, status)
	rs.count.Inc()
	rs.duration.Observe(d.Seconds())
}

func requestSeriesOf(op, backend string, status int) *requestSeries {
	if backend == "" {
		backend = NoBackend
		if i := slices.Index(earlyOps[:], op); i >= 0 && status >= 100 && status < 600 {
			return resolved(&earlySeries[i][status-100], func() *requestSeries {
				return newRequestSeries(op, backend, status)
			})
		}
	}
	k := requestKey{op, backend, status}
	s, ok := requestCache.Load(k)
	if !ok {
		s, _ = requestCache.LoadOrStore(k, newRequestSeries(op, backend, status))
	}
	return s.(*requestSeries)
}

func newRequestSeries(op, backend string, status int) *requestSeries {
	return &requestSeries{
		count:    requests.WithLabelValues(op, backend, code(status), Class(status)),
		duration: requestDuration.WithLabelValues(op, backend),
	}
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
var agentCallObservers = struct {
	sync.RWMutex
	m map[string]prometheus.Observer
}{m: map[string]prometheus.Observer{}}

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
	o = agentCalls.WithLabelValues(agent, method+" "+CallPath(path), outcome)
	agentCallObservers.Lock()
	agentCallObservers.m[string(key)] = o
	agentCallObservers.Unlock()
	return o
}

// CallPath replaces the segments of an agent path that name things (ids,
// tenants: anything with a digit, or longer than 40 bytes) with {id}, so
// the label stays bounded: /present-proof-2.0/records/{id}/verify-presentation.
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
		if len(seg) > 40 || (strings.ContainsAny(seg, "0123456789") && !knownSegment(seg)) {
			dst = append(dst, "{id}"...)
		} else {
			dst = append(dst, seg...)
		}
		if !more {
			return dst
		}
		path = rest
	}
}

// knownSegment: path segments of the agents' APIs that contain digits.
func knownSegment(s string) bool {
	return s == "present-proof-2.0" || s == "issue-credential-2.0" || s == "v1" || s == "v2"
}
