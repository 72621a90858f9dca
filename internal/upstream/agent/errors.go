package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
)

// maxLoggedMessage bounds how much of an agent's error text reaches the logs.
const maxLoggedMessage = 512

// Message extracts an agent's error text from a response body: the
// "message", "reason", "detail" or "error" member of a JSON object, or else
// the body as text. It is for logs and pattern matching, never for clients:
// agents put stack details and identifiers in there.
func Message(body []byte) string {
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil {
		for _, k := range []string{"message", "reason", "detail", "error"} {
			if s, ok := obj[k].(string); ok && s != "" {
				return s
			}
		}
	}
	return strings.TrimSpace(string(body))
}

// Details extracts the "details" member of an agent's error body (where
// credo-controller puts the reason of a 401, e.g. "TenantRecord: record
// with id … not found.", and tsoa the problems of a 422): a string as is,
// anything else as compact JSON. Like Message, it is for logs only.
func Details(body []byte) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return ""
	}
	raw, ok := obj["details"]
	if !ok || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return ""
	}
	return buf.String()
}

// jwtLike matches what looks like a JWT (three base64url segments, the
// first a JSON header): agents echo tokens in some errors, and logs must
// not carry them.
var jwtLike = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`)

// ForLog caps an agent's text for a log line and masks tokens in it.
func ForLog(msg string) string {
	msg = jwtLike.ReplaceAllString(msg, "[token]")
	if len(msg) > maxLoggedMessage {
		cut := maxLoggedMessage
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}

// StatusError maps a non-2xx answer to a backend error. recordScoped says
// the call names one proof record, so that a 404 means the record does not
// exist; on any other call a 404 means a wrong url or route layout. The
// agent's own words go to the log only; clients get a fixed message.
func (c *Client) StatusError(req Request, resp *Response, recordScoped bool) error {
	level := c.logger.Warn
	if resp.Status == http.StatusNotFound && recordScoped {
		level = c.logger.Debug
	}
	fields := []zap.Field{
		zap.String("method", req.Method), zap.String("path", req.Path),
		zap.Int("status", resp.Status), zap.String("agent_message", ForLog(Message(resp.Body))),
	}
	if d := Details(resp.Body); d != "" {
		fields = append(fields, zap.String("agent_details", ForLog(d)))
	}
	level("agent answered with an error", fields...)

	switch s := resp.Status; {
	case s == http.StatusNotFound && recordScoped:
		return backend.ErrNotFound
	case s == http.StatusNotFound:
		return &backend.UpstreamError{Status: s, Message: "the agent does not serve this operation; check the backend's url and routes"}
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		return &backend.UpstreamError{Status: s, Message: "the agent refused proofgate's credentials"}
	case s >= 400 && s < 500:
		return &backend.UpstreamError{Status: s, Message: fmt.Sprintf("the agent rejected the request (HTTP %d)", s)}
	case s >= 500:
		return &backend.UpstreamError{Status: s, Message: fmt.Sprintf("the agent failed (HTTP %d)", s)}
	default:
		return &backend.UpstreamError{Status: s, Message: fmt.Sprintf("unexpected answer from the agent (HTTP %d)", s)}
	}
}

// BadAnswer is the error for a 2xx answer proofgate cannot use (not JSON,
// or without a field it needs). what names the missing piece for the log.
func (c *Client) BadAnswer(req Request, what string) error {
	c.logger.Warn("agent answer unusable",
		zap.String("method", req.Method), zap.String("path", req.Path), zap.String("problem", what))
	return &backend.UpstreamError{Status: http.StatusOK, Message: "the agent's answer was not understood"}
}

// RecordAnswer reads an answer about record id with normalize (the
// agent's record format): a bad answer when it is not a proof record, or
// is another one (a buggy agent, or a proxy or cache answering from
// another request), which must never pass for id. The body is already
// capped at max_response_size, as every answer is.
func (c *Client) RecordAnswer(req Request, body []byte, id string, normalize func([]byte) (backend.ProofRecord, error)) (backend.ProofRecord, error) {
	rec, err := normalize(body)
	if err != nil {
		return backend.ProofRecord{}, c.BadAnswer(req, err.Error())
	}
	if rec.ID != id {
		return backend.ProofRecord{}, c.BadAnswer(req, "the agent answered with another record")
	}
	return rec, nil
}

// OrphanError means the agent created a proof request but proofgate could
// not read back its proof record (credo-controller answers a create with
// the thread id only). The request is not lost: it lives in the agent under
// ThreadID, and no client has its invitation, so nobody can answer it. Err
// is the backend error of the read-back and decides the HTTP status.
type OrphanError struct {
	ThreadID string
	Err      error
}

func (e *OrphanError) Error() string {
	return fmt.Sprintf("the agent created proof request thread %s but its record could not be read: %v", e.ThreadID, e.Err)
}

func (e *OrphanError) Unwrap() error { return e.Err }

// UnsupportedError is backend.UnsupportedError, kept under this name for
// the agent packages.
type UnsupportedError = backend.UnsupportedError
