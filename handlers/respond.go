package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/jsonenc"
	"github.com/proofgate/proofgate/internal/metrics"
)

// errorBody is every error response: statusCode equals the HTTP status and
// error is its reason phrase. Message is a string, or for 400 an array with
// one entry per problem. 401 and 403 carry exactly statusCode and error.
type errorBody struct {
	StatusCode int    `json:"statusCode"`
	Error      string `json:"error"`
	Message    any    `json:"message,omitempty"`
	RequestID  string `json:"requestId,omitempty"`
}

// successBody is the envelope of 4.1's answer.
type successBody struct {
	StatusCode int    `json:"statusCode"`
	Success    bool   `json:"success"`
	Message    string `json:"message"`
	Data       any    `json:"data"`
}

// writeJSON writes v as the JSON response body with status. HTML
// characters are written as they are (">=", not "\u003e="): the body is
// served as application/json with nosniff, never as HTML, and clients
// compare and log what they sent.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if err != nil {
		// Our own response types always marshal; this cannot happen, but
		// an empty 500 is better than a half-written body if it does.
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	writeBody(w, status, b)
}

// writeBody writes b, a JSON document, as the response body with status.
// The header keys are already canonical, so they are assigned directly
// (Header.Set would canonicalize them again on every response).
//
// The four values and the digits of the length share one allocation
// (instead of five); each value is its own slice of capacity one, so a
// later Add to one header copies it rather than overwriting its neighbour.
func writeBody(w http.ResponseWriter, status int, b []byte) {
	setJSONHeaders(w.Header(), new(headerValues), len(b))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeBodyChallenge is writeBody with a WWW-Authenticate challenge, whose
// value shares the others' allocation.
func writeBodyChallenge(w http.ResponseWriter, status int, b []byte, challenge string) {
	h := w.Header()
	hv := new(challengeHeaderValues)
	hv.challenge[0] = challenge
	h["Www-Authenticate"] = hv.challenge[:]
	setJSONHeaders(h, &hv.headerValues, len(b))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// setJSONHeaders sets the headers of a JSON answer of n bytes in h, their
// values held by hv.
//
// Content-Length is set only for answers larger than net/http buffers
// before it sends the header (implicitLengthMax): for one that fits,
// written in one Write by a handler that then returns, net/http (and
// x/net/http2, and quic-go's HTTP/3 under 4 KB) counts the buffered
// bytes and sends the same
// Content-Length itself, without the handler formatting it, adding it to
// the header map, net/http cloning and parsing it back, and writing it
// through the header map's slower path. Those are most of the answers
// that turn traffic away (400, 401, 403), so this is their cost.
func setJSONHeaders(h http.Header, hv *headerValues, n int) {
	hv.v = [4]string{"application/json; charset=utf-8", "no-store", "nosniff"}
	h["Content-Type"] = hv.v[0:1:1]
	h["Cache-Control"] = hv.v[1:2:2]
	h["X-Content-Type-Options"] = hv.v[2:3:3]
	if n > implicitLengthMax {
		digits := strconv.AppendInt(hv.digits[:0], int64(n), 10)
		// The digits are never written again: the string may share them.
		hv.v[3] = unsafe.String(&digits[0], len(digits))
		h["Content-Length"] = hv.v[3:4:4]
	}
}

// implicitLengthMax is the largest answer whose Content-Length net/http
// sets itself when the handler leaves it out: the buffer it fills before
// sending the header (bufferBeforeChunkingSize in net/http; HTTP/2's and
// HTTP/3's are larger). A larger answer without one would be sent chunked.
const implicitLengthMax = 2048

// headerValues holds the header values of one JSON answer.
type headerValues struct {
	v      [4]string
	digits [20]byte
}

// challengeHeaderValues holds those of a 401.
type challengeHeaderValues struct {
	headerValues
	challenge [1]string
}

// The interface's exact 401 and 403 bodies, encoded once: they are the
// answers to unauthenticated traffic, the cheapest a request can get.
var (
	unauthorizedBody = mustMarshal(errorBody{StatusCode: http.StatusUnauthorized, Error: "Unauthorized"})
	forbiddenBody    = mustMarshal(errorBody{StatusCode: http.StatusForbidden, Error: "Forbidden"})
)

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// MaxMessages caps the problems listed in one 400: a body built to fail
// every rule must not buy an answer larger than itself.
const MaxMessages = 100

// capMessages keeps the first MaxMessages problems and says how many more
// there were.
// moreLine begins the last line of a capped list of problems.
const moreLine = "… and "

func capMessages(m []string) []string {
	if len(m) <= MaxMessages || len(m) == MaxMessages+1 && strings.HasPrefix(m[MaxMessages], moreLine) {
		return m // capped already (the validator counts what it did not list)
	}
	out := make([]string, MaxMessages+1)
	copy(out, m[:MaxMessages])
	out[MaxMessages] = moreLine + strconv.Itoa(len(m)-MaxMessages) + " more"
	return out
}

// writeError writes an error body. message is omitted when nil; a list of
// problems is capped at MaxMessages.
func writeError(w http.ResponseWriter, status int, message any) {
	if list, ok := message.([]string); ok {
		message = capMessages(list)
	}
	buf := getBody()
	if b, ok := appendErrorBody((*buf)[:0], status, message); ok {
		writeBody(w, status, b)
		putBody(buf, b)
		return
	}
	writeJSON(w, status, errorBody{StatusCode: status, Error: http.StatusText(status), Message: message})
}

// writeInvalid answers 400 with problems, each "field: problem", and
// counts them in validation_failures_total by field: every 400 about a
// part of the request goes through here, or counts its problems itself
// before writeProblems (the validator's, held in its buffers).
func writeInvalid(w http.ResponseWriter, problems ...string) {
	metrics.ValidationFailures(problems)
	writeError(w, http.StatusBadRequest, problems)
}

// writeProblems writes a 400-style body listing problems: writeError for
// a list, without boxing the list in an interface.
func writeProblems(w http.ResponseWriter, status int, problems []string) {
	buf := getBody()
	b, _ := appendErrorBody((*buf)[:0], status, capMessages(problems))
	writeBody(w, status, b)
	putBody(buf, b)
}

// appendErrorBody appends the errorBody writeJSON would write for status
// and message (without requestId), byte for byte, for the messages
// handlers send: nil, a string or a list of strings. Put together by hand
// because the 400 is the answer to every malformed request and
// encoding/json's reflection was the largest part of its cost. It reports
// false for any other message type.
func appendErrorBody(b []byte, status int, message any) ([]byte, bool) {
	text := http.StatusText(status)
	switch m := message.(type) {
	case nil:
		b = slices.Grow(b, 32+len(text))
	case string:
		b = slices.Grow(b, 48+len(text)+len(m))
	case []string:
		n := 48 + len(text)
		for _, s := range m {
			n += len(s) + 3
		}
		b = slices.Grow(b, n)
	default:
		return b, false
	}
	b = append(b, `{"statusCode":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `,"error":`...)
	b = appendJSONString(b, text)
	switch m := message.(type) {
	case string:
		b = append(b, `,"message":`...)
		b = appendJSONString(b, m)
	case []string:
		b = append(b, `,"message":`...)
		b = jsonenc.AppendArray(b, m, appendJSONString)
	}
	return append(b, '}'), true
}

// writeUnauthorized writes the interface's exact 401 body and a challenge.
func writeUnauthorized(w http.ResponseWriter, challenge string) {
	writeBodyChallenge(w, http.StatusUnauthorized, unauthorizedBody, challenge)
}

// writeForbidden writes the interface's exact 403 body.
func writeForbidden(w http.ResponseWriter) {
	metrics.AuthFailure(metrics.AuthForbidden)
	writeBody(w, http.StatusForbidden, forbiddenBody)
}

// WriteInternalError logs err under r's request id and answers 500 with
// that id and nothing else, so operators can find the cause (and the
// request's log line, which carries the same id) and clients learn nothing
// of the internals.
func WriteInternalError(w http.ResponseWriter, r *http.Request, logger *zap.Logger, err any) {
	id := RequestID(r)
	logger.Error("internal error", zap.String("request_id", id), zap.Any("error", err))
	writeJSON(w, http.StatusInternalServerError, errorBody{
		StatusCode: http.StatusInternalServerError,
		Error:      http.StatusText(http.StatusInternalServerError),
		Message:    "internal error; quote the requestId when reporting it",
		RequestID:  id,
	})
}

// WriteMethodNotAllowed answers 405 with the allowed methods.
func WriteMethodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeError(w, http.StatusMethodNotAllowed, "use "+allow)
}
