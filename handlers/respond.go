package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"go.uber.org/zap"
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
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// MaxMessages caps the problems listed in one 400: a body built to fail
// every rule must not buy an answer larger than itself.
const MaxMessages = 100

// capMessages keeps the first MaxMessages problems and says how many more
// there were.
func capMessages(m []string) []string {
	if len(m) <= MaxMessages {
		return m
	}
	out := make([]string, MaxMessages+1)
	copy(out, m[:MaxMessages])
	out[MaxMessages] = "… and " + strconv.Itoa(len(m)-MaxMessages) + " more"
	return out
}

// writeError writes an error body. message is omitted when nil; a list of
// problems is capped at MaxMessages.
func writeError(w http.ResponseWriter, status int, message any) {
	if list, ok := message.([]string); ok {
		message = capMessages(list)
	}
	writeJSON(w, status, errorBody{StatusCode: status, Error: http.StatusText(status), Message: message})
}

// writeUnauthorized writes the interface's exact 401 body and a challenge.
func writeUnauthorized(w http.ResponseWriter, challenge string) {
	w.Header().Set("WWW-Authenticate", challenge)
	writeJSON(w, http.StatusUnauthorized, errorBody{StatusCode: http.StatusUnauthorized, Error: "Unauthorized"})
}

// writeForbidden writes the interface's exact 403 body.
func writeForbidden(w http.ResponseWriter) {
	writeJSON(w, http.StatusForbidden, errorBody{StatusCode: http.StatusForbidden, Error: "Forbidden"})
}

// WriteInternalError logs err under a fresh request id and answers 500 with
// that id and nothing else, so operators can find the cause and clients
// learn nothing of the internals.
func WriteInternalError(w http.ResponseWriter, logger *zap.Logger, err any) {
	id := uuid.NewString()
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
