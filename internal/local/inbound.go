package local

import (
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/bodyread"
	"github.com/proofgate/proofgate/internal/metrics"
	"github.com/proofgate/proofgate/internal/proofs"
)

// MaxDIDCommBody caps an inbound DIDComm envelope. A presentation with a
// few credentials is tens of kilobytes; a megabyte leaves room for many.
const MaxDIDCommBody = 1 << 20

// MaxInflightDIDCommBytes bounds the envelope bytes this process buffers at
// once, over all DIDComm endpoints: 16 full-size envelopes (or many more
// small ones) in flight. The endpoint takes no credentials, so without a
// bound 150 senders stalling after a megabyte would hold 150 MB.
const MaxInflightDIDCommBytes = 16 * MaxDIDCommBody

// inflightDIDComm is the process-wide budget of MaxInflightDIDCommBytes.
var inflightDIDComm = bodyread.NewBudget(MaxInflightDIDCommBytes)

func (l *Local) bodyBudget() *bodyread.Budget {
	if l.budget != nil {
		return l.budget
	}
	return inflightDIDComm
}

// didcommMediaTypes are the Content-Types an envelope may come with: the
// RFC 0044 media type, its legacy name, and plain JSON, which some agents
// send.
var didcommMediaTypes = map[string]bool{
	"application/didcomm-envelope-enc": true,
	"application/ssi-agent-wire":       true,
	"application/json":                 true,
}

// DIDCommPath is the URL path the gateway should serve with ServeDIDComm:
// the path of didcomm_endpoint when that endpoint is http(s) on the host of
// public_url (always so for the default <public_url>/didcomm), else "" (a
// WebSocket endpoint, or one on another host, which something else serves).
func (l *Local) DIDCommPath() string {
	ep, err := url.Parse(l.DIDCommEndpoint)
	if err != nil || (ep.Scheme != "http" && ep.Scheme != "https") {
		return ""
	}
	pub, err := url.Parse(l.PublicURL)
	if err != nil || !strings.EqualFold(ep.Host, pub.Host) {
		return ""
	}
	if ep.Path == "" {
		return "/"
	}
	return ep.Path
}

// ServeDIDComm is the inbound DIDComm endpoint (HTTP transport of Aries
// RFC 0025: one-way, the answer carries no message). It takes a POSTed RFC
// 0019 envelope and hands it to the verifier. Statuses:
//
//	202 the message was taken (a presentation recorded, or rejected with a
//	    problem report to the prover; a problem report recorded)
//	400 anything the sender got wrong: not an envelope, not for a key of
//	    ours, does not decrypt, unknown thread, unsupported message, a
//	    record that does not take it. One answer for all, so that a sender
//	    learns nothing about which keys or records exist.
//	405 not POST (with Allow: POST)
//	408 the body did not arrive within bodyread.DefaultTimeout
//	413 body over MaxDIDCommBody
//	415 Content-Type not application/didcomm-envelope-enc,
//	    application/ssi-agent-wire or application/json
//	503 storage unavailable, a verification out of time, too many
//	    presentations being checked at once (proofs.MaxConcurrentChecks),
//	    or MaxInflightDIDCommBytes already being received; with
//	    Retry-After, the sender may retry
//	500 anything else
//
// Error bodies are {"statusCode":N,"error":"<reason phrase>"}.
// refuseUnread answers a message refused before it could be read (its
// media type, size, the body budget, its deadline), counted as a rejected
// message of a type not known.
func refuseUnread(w http.ResponseWriter, status int) {
	metrics.DIDCommMessage(metrics.In, "", metrics.Rejected)
	if status == http.StatusServiceUnavailable {
		writeDIDCommError(w, status) // with Retry-After
		return
	}
	writeStatus(w, status)
}

func (l *Local) ServeDIDComm(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeStatus(w, http.StatusMethodNotAllowed)
		return
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || !didcommMediaTypes[strings.ToLower(mt)] {
		refuseUnread(w, http.StatusUnsupportedMediaType)
		return
	}
	body, err := bodyread.Read(w, r, bodyread.Limits{Max: MaxDIDCommBody, Timeout: l.bodyTimeout, Budget: l.bodyBudget()})
	switch {
	case errors.Is(err, bodyread.ErrTooLarge):
		refuseUnread(w, http.StatusRequestEntityTooLarge)
		return
	case errors.Is(err, bodyread.ErrBusy):
		// Anyone may post here: past the budget, refuse at once instead
		// of buffering without bound. The sender retries.
		refuseUnread(w, http.StatusServiceUnavailable)
		return
	case errors.Is(err, bodyread.ErrTimeout):
		refuseUnread(w, http.StatusRequestTimeout)
		return
	case err != nil:
		refuseUnread(w, http.StatusBadRequest)
		return
	}
	// A record transition that started finishes even if the sender hangs up.
	got, err := l.agent.Receive(context.WithoutCancel(r.Context()), body)
	status := DIDCommStatus(err)
	if status == http.StatusAccepted {
		metrics.DIDCommMessage(metrics.In, got.Type, metrics.Accepted)
	} else {
		metrics.DIDCommMessage(metrics.In, got.Type, metrics.Rejected)
	}
	if l.logger != nil {
		switch {
		case err == nil:
			l.logger.Debug("DIDComm message received", zap.String("record", got.RecordID), zap.String("type", got.Type), zap.String("state", got.State))
		case status >= 500:
			l.logger.Error("DIDComm message not handled", zap.Error(err))
		default:
			l.logger.Debug("DIDComm message refused", zap.Error(err))
		}
	}
	if status == http.StatusAccepted {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	writeDIDCommError(w, status)
}

// writeDIDCommError answers an envelope that was not taken; a 503 says
// when to come back.
func writeDIDCommError(w http.ResponseWriter, status int) {
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", retryAfter)
	}
	writeStatus(w, status)
}

// retryAfter is the Retry-After of a 503: checks take about a second.
const retryAfter = "2"

// DIDCommStatus maps an error of Agent.Receive to the HTTP status
// ServeDIDComm answers (202 for nil).
func DIDCommStatus(err error) int {
	var conflict *backend.ConflictError
	switch {
	case err == nil:
		return http.StatusAccepted
	case errors.Is(err, proofs.ErrMalformed), errors.Is(err, proofs.ErrNotForUs),
		errors.Is(err, proofs.ErrUnknownThread), errors.Is(err, proofs.ErrUnsupported),
		errors.As(err, &conflict):
		return http.StatusBadRequest
	case errors.Is(err, backend.ErrUnavailable), errors.Is(err, proofs.ErrBusy):
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

func writeStatus(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		StatusCode int    `json:"statusCode"`
		Error      string `json:"error"`
	}{status, http.StatusText(status)})
}

// Agent is the DIDComm side of the verifier.
func (l *Local) Agent() *proofs.Agent { return l.agent }

// Cleanup waits for problem reports still being sent (each bounded by a
// timeout), releases the ack deliverer and then the record journal.
func (l *Local) Cleanup() error {
	if l.agent != nil {
		l.agent.Close()
	}
	err := l.releaseAcks()
	if l.svc != nil {
		l.svc.Close()
	}
	return err
}
