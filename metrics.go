package proofgate

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Operation labels of the metrics.
const (
	opSendOOB  = "send_oob"
	opAccept   = "accept_presentation"
	opShortURL = "short_url"
	opDIDComm  = "didcomm"
)

// metrics are package-global because every config load gets a fresh
// registry (Caddy's pattern): the collectors are registered again with each
// Provision and keep their counts across reloads. Labels are bounded (four
// operations, HTTP status codes); org ids are deliberately not a label.
var metrics = struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	mails    *prometheus.CounterVec
}{
	mails: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy",
		Subsystem: "proofgate",
		Name:      "mail_attempts_total",
		Help:      "Invitation e-mail delivery attempts, by outcome: sent, failed (for good), or retry (will be tried again).",
	}, []string{"outcome"}),
	requests: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy",
		Subsystem: "proofgate",
		Name:      "requests_total",
		Help:      "Requests to proofgate's operations, by operation and HTTP status.",
	}, []string{"operation", "code"}),
	duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "caddy",
		Subsystem: "proofgate",
		Name:      "request_duration_seconds",
		Help:      "Time to answer proofgate's operations, by operation (backend calls included).",
		Buckets:   []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"operation"}),
}

func registerMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	for _, c := range []prometheus.Collector{metrics.requests, metrics.duration, metrics.mails} {
		if err := reg.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				return err
			}
		}
	}
	return nil
}

// statusWriter remembers the status written, for the metrics. Pooled: one
// is needed per request on proofgate's routes.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

var statusWriters = sync.Pool{New: func() any { return new(statusWriter) }}

// codes caches the label values of the statuses proofgate writes, so
// observing a request does not format an integer.
var codes = func() map[int]string {
	m := map[int]string{}
	for _, c := range []int{200, 201, 302, 400, 401, 403, 404, 405, 409, 413, 415, 500, 502, 503, 504} {
		m[c] = strconv.Itoa(c)
	}
	return m
}()

func observe(op string, status int, start time.Time) {
	code, ok := codes[status]
	if !ok {
		code = strconv.Itoa(status)
	}
	metrics.requests.WithLabelValues(op, code).Inc()
	metrics.duration.WithLabelValues(op).Observe(time.Since(start).Seconds())
}
