package proofgate

import (
	"net/http"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/proofgate/proofgate/handlers"
	"github.com/proofgate/proofgate/internal/redact"
	"github.com/proofgate/proofgate/internal/validate"
)

// RequestLoggerName is the logger of the one-line-per-request log, under
// the handler's own: http.handlers.proofgate.requests. Operators sample it
// or silence it with Caddy's log configuration (README, "Request log").
const RequestLoggerName = "requests"

// logRequest writes the request's line at info level: request id (Caddy's
// {http.request.uuid}, the one its access log shows), org, operation,
// backend, status and duration, and the record state changes the request
// caused. Nothing secret is written: no header, no body, no short URL id
// (it opens the invitation), and e-mail addresses only by domain.
//
// With request_log sampling, the sampler decides first (at start+d, the
// clock read the duration already took), so that a dropped line never
// reaches zap.
func (h *Handler) logRequest(r *http.Request, rt route, param string, sw *statusWriter, changes []handlers.RecordChange, start time.Time, d time.Duration) {
	if h.requestSample != nil && !h.requestSample.Keep(start.Add(d)) {
		return
	}
	c := h.requestLog.Check(zapcore.InfoLevel, "handled request")
	if c == nil {
		return
	}
	fields := make([]zap.Field, 0, 10)
	fields = append(fields,
		zap.String("request_id", handlers.RequestID(r)),
		zap.String("operation", rt.operation()),
		zap.String("method", r.Method),
		zap.Int("status", sw.status),
		zap.Duration("duration", d),
	)
	if sw.note.Backend != "" {
		fields = append(fields, zap.String("backend", sw.note.Backend))
	}
	org := sw.note.Org
	if org == "" && rt == routeOOB && validate.OrgID(param) == nil {
		org = param
	}
	if org != "" {
		fields = append(fields, zap.String("org", RedactEmail(org)))
	}
	switch {
	case len(changes) == 1:
		fields = append(fields, zap.Inline(recordChange(changes[0])))
	case rt == routeAccept && validate.ProofRecordID(param) == nil:
		fields = append(fields, zap.String("proof_record_id", param))
	}
	if len(changes) > 1 {
		fields = append(fields, zap.Array("state_changes", recordChanges(changes)))
	}
	if len(sw.note.Recipients) > 0 {
		fields = append(fields, zap.Strings("recipients", redactEmails(sw.note.Recipients)))
	}
	c.Write(fields...)
}

// recordChange is one state change's fields: inline on the line of a
// request that caused one, an object of state_changes for several.
type recordChange handlers.RecordChange

func (c recordChange) MarshalLogObject(o zapcore.ObjectEncoder) error {
	o.AddString("proof_record_id", c.ProofRecordID)
	if c.PreviousState != "" {
		o.AddString("previous_state", c.PreviousState)
	}
	o.AddString("state", c.State)
	return nil
}

// recordChanges are a request's state changes, as a log field.
type recordChanges []handlers.RecordChange

func (cs recordChanges) MarshalLogArray(enc zapcore.ArrayEncoder) error {
	for _, c := range cs {
		if err := enc.AppendObject(recordChange(c)); err != nil {
			return err
		}
	}
	return nil
}

// RedactEmail hides the local part of an e-mail address: "***@example.com".
// Anything without an @ is returned as is.
func RedactEmail(s string) string { return redact.Email(s) }

func redactEmails(addrs []string) []string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = RedactEmail(a)
	}
	return out
}
