// Package metrics defines every Prometheus metric proofgate exports and
// the small helpers that record them, in one place, so that each feature
// records its numbers the same way and every label stays bounded.
//
// The collectors are package-global because every Caddy config load gets
// a fresh registry: Register adds them to each one, and their counts
// survive reloads (the pattern of Caddy's own reverse_proxy metrics). Org
// ids, record ids, e-mail addresses and URLs are never labels; label values
// that come from input are mapped onto fixed sets (anything else is
// "other").
package metrics

import (
	"errors"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

const (
	namespace = "caddy"
	subsystem = "proofgate"
)

// Operation labels of proofgate's routes.
const (
	OpSendOOB  = "send_oob"
	OpAccept   = "accept_presentation"
	OpShortURL = "short_url"
	OpDIDComm  = "didcomm"
)

// NoBackend is the backend label of requests answered before a backend
// was chosen (401, 400, 403, …).
const NoBackend = "none"

// latencyBuckets fit both sub-millisecond answers (a 401) and agent calls
// of seconds.
var latencyBuckets = [...]float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

var (
	agentCalls = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Subsystem: subsystem, Name: "agent_call_duration_seconds",
		Help:    "Calls to upstream agents, by agent (type and base URL, as configured), call (method and path with ids replaced by {id}) and outcome (the status class, or error when no answer came).",
		Buckets: latencyBuckets[:],
	}, []string{"agent", "call", "outcome"})
	jwksFetches = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: subsystem, Name: "jwks_fetches_total",
		Help: "Fetches of identity providers' JWKS documents, by outcome: ok, failed (the last good key set stays), rate_limited (an on-demand refetch refused: one was started less than min_refresh_interval ago).",
	}, []string{"outcome"})
	outboxDeliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: subsystem, Name: "outbox_deliveries_total",
		Help: "Delivery attempts of outbox messages, by kind (mail, webhook, ack) and outcome: sent, retry (will be tried again), failed (given up).",
	}, []string{"kind", "outcome"})
	didcommMessages = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: subsystem, Name: "didcomm_messages_total",
		Help: "DIDComm messages of the local verifier, by direction (in, out), message type (presentation, problem-report, ack, …, other) and outcome (accepted, rejected, sent, failed).",
	}, []string{"direction", "type", "outcome"})
	verifications = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: subsystem, Name: "verifications_total",
		Help: "Verdicts of the local verifier on received presentations, by format (indy, anoncreds, dif, w3c, other) and outcome (verified; answers_request: conforms, no verifier judges the format; rejected; error: the verifier could not judge).",
	}, []string{"format", "outcome"})
	mailAttempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: subsystem, Name: "mail_attempts_total",
		Help: "Invitation e-mail delivery attempts, by outcome: sent, failed (for good), or retry (will be tried again).",
	}, []string{"outcome"})
)

// Register adds proofgate's collectors to reg (a config load's registry);
// collectors already there are fine.
func Register(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	for _, c := range collectors() {
		if err := reg.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				return err
			}
		}
	}
	return nil
}

func collectors() []prometheus.Collector {
	return []prometheus.Collector{
		requestCollector{}, agentCalls, jwksFetches, validationFailures, authFailures,
		outboxDeliveries, didcommMessages, verifications, mailAttempts, outboxes, owners, journals, backendInfo,
	}
}

// Names returns the name of every metric of this package (the root
// package's MetricNames adds those registered elsewhere), for the checks
// of the dashboards and alert rules that use them.
func Names() []string { return NamesOf(collectors()...) }

// NamesOf returns the sorted names of the metrics cs describe.
func NamesOf(cs ...prometheus.Collector) []string {
	ch := make(chan *prometheus.Desc, 64)
	go func() {
		for _, c := range cs {
			c.Describe(ch)
		}
		close(ch)
	}()
	var names []string
	for d := range ch {
		// Desc has no accessor for its name; its String() starts with it.
		_, rest, _ := strings.Cut(d.String(), `fqName: "`)
		name, _, _ := strings.Cut(rest, `"`)
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Class is the status class label of an HTTP status: "2xx" for 201.
func Class(status int) string {
	switch status / 100 {
	case 1:
		return "1xx"
	case 2:
		return "2xx"
	case 3:
		return "3xx"
	case 4:
		return "4xx"
	case 5:
		return "5xx"
	}
	return "other"
}

// JWKS fetch outcomes.
const (
	JWKSOK          = "ok"
	JWKSFailed      = "failed"
	JWKSRateLimited = "rate_limited"
)

// JWKSFetch counts one JWKS fetch by outcome (JWKSOK, JWKSFailed,
// JWKSRateLimited).
func JWKSFetch(outcome string) {
	jwksFetches.WithLabelValues(bounded(outcome, JWKSOK, JWKSFailed, JWKSRateLimited)).Inc()
}

// Outbox kinds and delivery outcomes.
const (
	KindMail    = "mail"
	KindWebhook = "webhook"
	KindAck     = "ack"

	Sent   = "sent"
	Retry  = "retry"
	Failed = "failed"
)

// OutboxDelivery counts one delivery attempt of kind (KindMail,
// KindWebhook, KindAck) by outcome (Sent, Retry, Failed).
func OutboxDelivery(kind, outcome string) {
	outboxDeliveries.WithLabelValues(bounded(kind, KindMail, KindWebhook, KindAck), bounded(outcome, Sent, Retry, Failed)).Inc()
}

// MailAttempt counts an e-mail delivery attempt in the older
// mail_attempts_total, kept for existing dashboards. (The outbox counts
// the delivery itself in outbox_deliveries_total, for every kind.)
func MailAttempt(outcome string) {
	mailAttempts.WithLabelValues(bounded(outcome, Sent, Retry, Failed)).Inc()
}

// DIDComm directions and outcomes.
const (
	In  = "in"
	Out = "out"

	Accepted = "accepted"
	Rejected = "rejected"
)

var didcommTypes = []string{
	"presentation", "problem-report", "ack", "request-presentation", "propose-presentation",
	"forward", "invitation", "handshake-reuse", "ping", "ping-response",
}

// DIDCommMessage counts a message of the local verifier: direction In or
// Out; msgType is the message's @type (or its last segment: presentation);
// outcome is Accepted or Rejected for inbound messages, Sent or Failed for
// outbound ones.
func DIDCommMessage(direction, msgType, outcome string) {
	if i := strings.LastIndexByte(msgType, '/'); i >= 0 {
		msgType = msgType[i+1:]
	}
	didcommMessages.WithLabelValues(bounded(direction, In, Out), bounded(msgType, didcommTypes...),
		bounded(outcome, Accepted, Rejected, Sent, Failed)).Inc()
}

// Verification verdicts.
const (
	Verified       = "verified"
	AnswersRequest = "answers_request"
	Error          = "error"
)

// Verification counts a verdict on a presentation: format is indy,
// anoncreds, dif or w3c; outcome Verified (signatures checked),
// AnswersRequest (it conforms to the request; signatures not checked),
// Rejected or Error.
func Verification(format, outcome string) {
	verifications.WithLabelValues(bounded(format, "indy", "anoncreds", "dif", "w3c"),
		bounded(outcome, Verified, AnswersRequest, Rejected, Error)).Inc()
}

// bounded returns v if it is one of allowed, else "other".
func bounded(v string, allowed ...string) string {
	if slices.Contains(allowed, v) {
		return v
	}
	return "other"
}
