package proofs

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/didcomm"
	"github.com/proofgate/proofgate/internal/metrics"
	"github.com/proofgate/proofgate/internal/netguard"
)

// Outbound limits.
const (
	// maxResponseBody is how much of a prover endpoint's answer is read
	// (and thrown away) so the connection can be reused.
	maxResponseBody = 64 << 10
	// maxEndpoint caps a ~service endpoint URL.
	maxEndpoint = 2048
)

// Metadata keys of a record that say how a message to the prover fared.
const (
	MetadataAck           = "ack"
	MetadataProblemReport = "problemReport"
)

// Problem report types and the code Credo and ACA-Py use when a verifier
// gives up on a presentation.
const (
	TypeProblemReportV2  = "https://didcomm.org/present-proof/2.0/problem-report"
	TypeProblemReportV1  = "https://didcomm.org/present-proof/1.0/problem-report"
	ProblemCodeAbandoned = "abandoned"
)

// ErrForbiddenAddress means an endpoint resolved to an address the SSRF
// guard refuses.
var ErrForbiddenAddress = netguard.ErrForbiddenAddress

// ProblemReport is an RFC 0035 problem report adopted by present-proof.
type ProblemReport struct {
	Type        string             `json:"@type"`
	ID          string             `json:"@id"`
	Thread      Thread             `json:"~thread"`
	Description ProblemDescription `json:"description"`
}

// ProblemDescription is the problem report's description.
type ProblemDescription struct {
	Code string `json:"code"`
	En   string `json:"en,omitempty"`
}

// BuildProblemReport builds the present-proof problem report (code
// abandoned) on the record's thread, 2.0 or 1.0 to match the request.
func BuildProblemReport(protocolVersion, threadID, invitationID, explanation string) ([]byte, error) {
	id, err := uuid.NewRandom()
	if err != nil {
		return nil, err
	}
	typ := TypeProblemReportV2
	if protocolVersion == backend.ProtocolV1 {
		typ = TypeProblemReportV1
	}
	return marshal(ProblemReport{
		Type:        typ,
		ID:          id.String(),
		Thread:      Thread{ThID: threadID, PThID: invitationID},
		Description: ProblemDescription{Code: ProblemCodeAbandoned, En: explanation},
	})
}

// newClient is the HTTP client for prover endpoints: the outbound address
// guard (unless private endpoints are allowed) and no redirects (a 3xx is a
// failed delivery, and must not lead past the guard).
func newClient(allowPrivate bool, timeout time.Duration) *http.Client {
	return netguard.Client(netguard.Options{AllowPrivate: allowPrivate, Timeout: timeout})
}

// checkEndpoint accepts http and https endpoints only.
func checkEndpoint(raw string) (*url.URL, error) {
	if len(raw) > maxEndpoint {
		return nil, errors.New("service endpoint is too long")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("service endpoint is not a URL")
	}
	switch u.Scheme {
	case "http", "https":
	case "ws", "wss":
		return nil, errors.New("service endpoint is a WebSocket; the local verifier sends over HTTP only")
	default:
		return nil, fmt.Errorf("service endpoint scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" || u.User != nil {
		return nil, errors.New("service endpoint has no host, or has credentials")
	}
	return u, nil
}

// errNoService is the outcome when the prover left no way back.
var errNoService = errors.New("the prover sent no ~service decorator, so there is no endpoint to send to")

// errBadEndpoint marks an endpoint the verifier will not send to.
var errBadEndpoint = errors.New("bad endpoint")

// statusError is a prover endpoint's non-2xx answer.
type statusError struct{ code int }

func (e *statusError) Error() string { return fmt.Sprintf("the endpoint answered HTTP %d", e.code) }

// send packs msg for the prover's service (authcrypt with the verifier's
// key, wrapped for its routing keys) and POSTs it. It holds no lock.
func (a *Agent) send(ctx context.Context, client *http.Client, msg []byte, svc *ServiceDecorator, key ed25519.PrivateKey) error {
	if svc == nil || len(svc.RecipientKeys) == 0 {
		return errNoService
	}
	u, err := checkEndpoint(svc.ServiceEndpoint)
	if err != nil {
		return fmt.Errorf("%w: %w", errBadEndpoint, err)
	}
	env, err := didcomm.PackFor(msg, svc.RecipientKeys, svc.RoutingKeys, key)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(env))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", MediaTypeEnvelope)
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is on the record already
		}
		return fmt.Errorf("delivery failed: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBody))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &statusError{code: resp.StatusCode}
	}
	return nil
}

// MediaTypeEnvelope is the media type of an RFC 0019 envelope over HTTP.
const MediaTypeEnvelope = "application/didcomm-envelope-enc"

// outcome is what a record's metadata says about one delivery. Its error
// is a coarse category (deliveryCategory), never the error text, which can
// hold DNS answers and internal addresses: that goes to the log.
func (a *Agent) outcome(endpoint string, err error) map[string]any {
	o := map[string]any{
		"sent": err == nil,
		"at":   a.svc.cfg.Now().UTC().Format(backend.TimeFormat),
	}
	if endpoint != "" {
		o["endpoint"] = endpoint
	}
	if err != nil {
		o["error"] = deliveryCategory(err)
	}
	return o
}

// deliver sends msg to the prover of doc (its connection, else the
// ~service it sent) and returns the outcome for the record's metadata.
// ctx's cancellation is ignored: once the record has moved, the message
// goes out even if the caller went away.
func (a *Agent) deliver(ctx context.Context, doc *Doc, msg []byte) map[string]any {
	ctx = context.WithoutCancel(ctx)
	svc, err := a.proverService(ctx, doc)
	if err != nil {
		a.logDelivery(doc, err)
		return a.outcome("", err)
	}
	endpoint := ""
	if svc != nil {
		endpoint = svc.ServiceEndpoint
	}
	err = a.sendToProver(ctx, a.client, doc, svc, msg)
	a.logDelivery(doc, err)
	return a.outcome(endpoint, err)
}

// sendToProver packs msg with the record's verifier key for svc and posts
// it through client; the key is opened before anything is sent.
func (a *Agent) sendToProver(ctx context.Context, client *http.Client, doc *Doc, svc *ServiceDecorator, msg []byte) error {
	rk, err := a.svc.RecipientKey(ctx, doc.Key.Verkey)
	if err != nil {
		return fmt.Errorf("verifier key: %w", err)
	}
	return a.send(ctx, client, msg, svc, rk.Key)
}

// countDelivery records a delivery's outcome (from deliver) in the
// metrics as a DIDComm message out. (Acks go through the outbox, which
// counts its own deliveries; deliverAck counts the message.)
func countDelivery(msgType string, out map[string]any) {
	outcome := metrics.Failed
	if sent, _ := out["sent"].(bool); sent {
		outcome = metrics.Sent
	}
	metrics.DIDCommMessage(metrics.Out, msgType, outcome)
}

// Accept accepts the presentation of a record (Service.Accept: only from
// presentation-received, else *backend.ConflictError) and queues its ack
// in the outbox in the same transition (ack.go): the ack's message is
// written before the record moves to done, so no crash loses it. The
// first attempt is made at once and the returned record says how it went
// (metadata "ack": {"sent", "state", "attempts", "endpoint", "at",
// "error"}); a failed one is retried with backoff, and metadata "ack"
// follows each outcome.
func (a *Agent) Accept(ctx context.Context, org backend.Org, recordID string) (backend.ProofRecord, error) {
	doc, err := a.svc.accept(ctx, org, recordID, a.stageAck)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	ctx = context.WithoutCancel(ctx)
	if _, err := a.acks.DeliverNow(ctx, ackMessageID(doc.Record.ID)); err != nil {
		a.logger.Warn("the first attempt of an ack could not be made; the outbox retries it",
			zap.String("proof_record_id", doc.Record.ID), zap.Error(err))
	}
	a.releaseAck(doc.Record.ID) // if DeliverNow could not take it
	if d, err := a.svc.Load(ctx, recordID); err == nil {
		return d.Record, nil
	}
	return doc.Record, nil // accepted; the ack's outcome is on the record later
}

// reportProblem sends a problem report for an abandoned record in the
// background (the prover's request that brought the presentation is
// still open, and its agent may not take our POST before it has our
// answer) and notes the outcome in metadata "problemReport".
func (a *Agent) reportProblem(ctx context.Context, doc *Doc, explanation string) {
	msg, err := BuildProblemReport(doc.Record.ProtocolVersion, doc.Record.ThreadID, doc.InvitationID, explanation)
	if err != nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		out := a.deliver(ctx, doc, msg)
		countDelivery("problem-report", out)
		// Bounded, as an ack's outcome is: a record lock that is never
		// released must not hold this goroutine, and Close behind it.
		mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = a.svc.SetMetadata(mctx, doc.Record.ID, MetadataProblemReport, out)
	}()
}
