package proofgate

import (
	"net/http"
	"sync"

	"github.com/proofgate/proofgate/handlers"
	"github.com/proofgate/proofgate/internal/metrics"
)

// Operation labels of the metrics and the request log.
const (
	opSendOOB  = metrics.OpSendOOB
	opAccept   = metrics.OpAccept
	opShortURL = metrics.OpShortURL
	opDIDComm  = metrics.OpDIDComm
)

// statusWriter remembers the status written and carries the request's
// note, for the metrics and the request log. Pooled: one is needed per
// request on proofgate's routes.
type statusWriter struct {
	http.ResponseWriter
	status int
	note   handlers.RequestNote
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

// RequestNote implements handlers.Noter.
func (w *statusWriter) RequestNote() *handlers.RequestNote { return &w.note }

var statusWriters = sync.Pool{New: func() any { return new(statusWriter) }}
