package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/checkslots"
)

// statusClientClosedRequest is the status of a request whose client went
// away before its answer (nginx's 499, which Caddy's reverse_proxy uses
// too): not the server's fault, and read by nobody but the logs and
// metrics, where it must not count as a server error.
const statusClientClosedRequest = 499

// unmetRequest heads the problems of a presentation that does not answer
// its request.
const unmetRequest = "the presentation does not answer the proof request, so it was not accepted"

// unmetPresented heads the problems of the presentation of a record past
// presentation-received (a credo record its agent accepted on its own).
const unmetPresented = "its presentation does not answer the proof request"

// writeBackendError maps a backend's typed error onto its HTTP status.
// Anything untyped is an internal error: logged, never shown. The lines it
// logs carry r's request id, the one of its request log line.
func writeBackendError(w http.ResponseWriter, r *http.Request, logger *zap.Logger, recordID string, err error) {
	var conflict *backend.ConflictError
	var unmet *backend.UnmetRequestError
	var upstream *backend.UpstreamError
	var unsupported *backend.UnsupportedError
	switch {
	case errors.As(err, &unsupported):
		writeInvalid(w, unsupported.Problems()...)
	case errors.Is(err, backend.ErrNotFound):
		writeError(w, http.StatusNotFound, fmt.Sprintf("proof record %s not found", recordID))
	case errors.As(err, &conflict):
		msg := fmt.Sprintf("proof record is in state %q; a presentation can be accepted only in state %q",
			conflict.State, backend.StatePresentationReceived)
		if len(conflict.Unmet) == 0 {
			writeError(w, http.StatusConflict, msg)
			break
		}
		writeError(w, http.StatusConflict, append([]string{msg, unmetPresented}, conflict.Unmet...))
	case errors.As(err, &unmet):
		writeError(w, http.StatusConflict, append([]string{unmetRequest}, unmet.Problems...))
	case errors.As(err, &upstream):
		logger.Warn("upstream agent answered badly", zap.String("request_id", RequestID(r)), zap.Int("status", upstream.Status), zap.Error(err))
		writeError(w, http.StatusBadGateway, upstream.Message)
	case errors.Is(err, backend.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		logger.Warn("backend timed out", zap.String("request_id", RequestID(r)), zap.Error(err))
		writeError(w, http.StatusGatewayTimeout, "the agent did not answer in time")
	case errors.Is(err, checkslots.ErrBusy):
		// As many presentations are being checked as the process allows
		// (a credo backend checks one before it accepts it; nothing was
		// accepted). A check takes a second or two: say when to come
		// back, as the DIDComm endpoint does.
		logger.Warn("too many presentations being checked", zap.String("request_id", RequestID(r)), zap.Error(err))
		w.Header().Set("Retry-After", "2")
		writeError(w, http.StatusServiceUnavailable, "too many presentations are being checked right now; try again in a few seconds")
	case errors.Is(err, backend.ErrUnavailable):
		logger.Warn("backend unavailable", zap.String("request_id", RequestID(r)), zap.Error(err))
		writeError(w, http.StatusServiceUnavailable, "the verifier is unavailable; try again later")
	case errors.Is(err, context.Canceled):
		// The backends stop on the request's context, canceled when the
		// client goes away (what it leaves behind, they log themselves).
		logger.Debug("the client went away before the answer", zap.String("request_id", RequestID(r)), zap.Error(err))
		writeJSON(w, statusClientClosedRequest, errorBody{StatusCode: statusClientClosedRequest, Error: "Client Closed Request"})
	default:
		WriteInternalError(w, r, logger, err.Error())
	}
}
