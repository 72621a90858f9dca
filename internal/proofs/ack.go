package proofs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/keyseal"
	"github.com/proofgate/proofgate/internal/metrics"
	"github.com/proofgate/proofgate/internal/netguard"
	"github.com/proofgate/proofgate/internal/outbox"
)

// Durable acks. Accepting a presentation writes two documents: first the
// ack's outbox message, keyed by the record (ack-<recordId>), then the
// record itself, done with its ack built (Doc.Ack). Caddy storage has no
// transaction over two keys, so the order and the delivery carry the
// guarantee: if the record write fails the message is withdrawn; if the
// process dies between the two, the message finds its record not done
// and is retried (and in the end dropped) without sending anything; once
// the record is done its ack cannot be lost. The message holds only the
// record id: the ack (with its stable @id) and the way to the prover are
// read from the record at delivery, so a delivery repeated after a lost
// outcome sends the same ack again, which the prover's agent recognizes.

// AckKind is the outbox kind of acks.
const AckKind = "ack"

// AckNamespace is where ack messages wait, under proofgate/.
const AckNamespace = "acks"

// Ack delivery policy: a prover that is unreachable is tried again after
// about 10s, 20s, 40s, … up to hourly, 12 times in all.
const (
	ackRetryBackoff = 10 * time.Second
	ackMaxAttempts  = 12
)

// ackWorkers is how many acks are sent at once. Provers choose where
// their acks go, and an endpoint that never answers holds a worker for
// the whole send timeout at every attempt; the outbox's default of two
// let two such provers put off every other prover's ack. A waiting
// worker costs a goroutine and a connection.
const ackWorkers = 16

// ackMessage is the outbox payload of an ack.
type ackMessage struct {
	RecordID string `json:"recordId"`
	// Guarded says the backend that staged the ack keeps the outbound
	// address guard (no allow_private_endpoints). The ack deliverer is
	// shared by every local backend on the storage and its newest
	// registration delivers, so the ack carries its own backend's policy:
	// one that allows private endpoints still sends it guarded. (Absent
	// in acks staged before it: the delivering backend's policy.)
	Guarded bool `json:"guarded,omitempty"`
}

func ackMessageID(recordID string) string { return "ack-" + recordID }

// NewAckDeliverer returns an (unstarted) deliverer of the acks outbox in
// storage. onResult, if set, hears of every outcome (metrics).
func NewAckDeliverer(storage certmagic.Storage, logger *zap.Logger, onResult outbox.ResultFunc) *outbox.Deliverer {
	return outbox.NewDeliverer(outbox.New(storage, AckNamespace, nil), outbox.Options{
		Workers:      ackWorkers,
		MaxAttempts:  ackMaxAttempts,
		RetryBackoff: ackRetryBackoff,
		Lease:        DefaultSendTimeout + 2*time.Minute,
		DefaultKind:  AckKind,
		Logger:       logger,
		OnResult:     onResult,
	})
}

// stageAck writes the ack's outbox message before the record moves to
// done (Service.accept), and notes on the record that it is queued. The
// message is held until the record is stored: the accept's caller
// releases it (releaseAck), so no worker finds it before its record is
// done and spends an attempt on "record-not-done".
func (a *Agent) stageAck(ctx context.Context, d *Doc) (backend.Staged, error) {
	id := ackMessageID(d.Record.ID)
	// Restage, not Stage: a message left by an accept that died before
	// its record write may be in a worker's hands right now.
	if err := a.acks.Outbox().Restage(ctx, id, AckKind, ackMessage{RecordID: d.Record.ID, Guarded: !a.allowPrivate}); err != nil {
		return nil, err
	}
	if d.Record.Metadata == nil {
		d.Record.Metadata = map[string]any{}
	}
	d.Record.Metadata[MetadataAck] = map[string]any{"sent": false, "state": string(outbox.StateQueued), "attempts": 0}
	return &ackStaged{a: a, id: id}, nil
}

type ackStaged struct {
	a  *Agent
	id string
}

// Commit does nothing: the accept's caller releases the message once the
// record is done (releaseAck), after making the first attempt itself
// when it answers with the outcome.
func (s *ackStaged) Commit() {}

func (s *ackStaged) Abort(ctx context.Context) {
	if err := s.a.acks.Outbox().Cancel(context.WithoutCancel(ctx), s.id); err != nil {
		s.a.logger.Warn("withdrawing the ack of an accept that was not stored", zap.String("message_id", s.id), zap.Error(err))
	}
}

// releaseAck hands the ack of a stored accept to the workers (a no-op
// for a message DeliverNow already took).
func (a *Agent) releaseAck(recordID string) { a.acks.Notify(ackMessageID(recordID)) }

// errNotDone: the ack's record has not (yet) moved to done.
var errNotDone = errors.New("the record is not accepted")

// deliverAck is the outbox delivery function of acks.
func (a *Agent) deliverAck(ctx context.Context, e outbox.Entry) error {
	var m ackMessage
	if err := e.Decode(&m); err != nil {
		return outbox.Permanent(&outbox.Failure{Public: "undecodable message", Err: err})
	}
	doc, err := a.svc.Load(ctx, m.RecordID)
	if errors.Is(err, backend.ErrNotFound) {
		return outbox.Permanent(&outbox.Failure{Public: "record-gone", Err: err})
	}
	if errors.Is(err, keyseal.ErrUnknownKey) {
		return notMine(err)
	}
	if err != nil {
		return &outbox.Failure{Public: "storage", Err: err}
	}
	if doc.Record.State != backend.StateDone || len(doc.Ack) == 0 {
		// Written before the record: the accept is in flight, or died.
		return &outbox.Failure{Public: "record-not-done", Err: errNotDone}
	}
	client := a.client
	if m.Guarded {
		client = a.guarded
	}
	svc, err := a.proverService(ctx, doc)
	if err == nil {
		err = a.sendToProver(ctx, client, doc, svc, doc.Ack)
	}
	if errors.Is(err, keyseal.ErrUnknownKey) {
		// The verifier key, opened before anything is sent, is another
		// backend's.
		return notMine(err)
	}
	a.logDelivery(doc, err)
	if err == nil {
		metrics.DIDCommMessage(metrics.Out, "ack", metrics.Sent)
		return nil
	}
	metrics.DIDCommMessage(metrics.Out, "ack", metrics.Failed)
	f := &outbox.Failure{Public: deliveryCategory(err), Err: err}
	var se *statusError
	if errors.Is(err, errNoService) || errors.Is(err, errBadEndpoint) || (errors.As(err, &se) && se.code >= 400 && se.code < 500 && se.code != 408 && se.code != 429) {
		f.Permanent = true
	}
	return f
}

// notMine is deliverAck's answer for an ack whose record or verifier key
// this backend cannot open: another local backend on this storage, with
// another key_encryption_key, made it. The deliverer is shared, and that
// backend's registration can open the key and send the ack.
func notMine(err error) error {
	return &outbox.Failure{Public: "record-key-unknown", Err: fmt.Errorf("%w: %w", outbox.ErrNotMine, err)}
}

// ackResult notes an ack's delivery outcome on its record's metadata.
func (a *Agent) ackResult(e outbox.Entry, s outbox.Status) {
	var m ackMessage
	if e.Decode(&m) != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := a.svc.update(ctx, m.RecordID, func(d *Doc) error {
		if d.Record.Metadata == nil {
			d.Record.Metadata = map[string]any{}
		}
		o := map[string]any{
			"sent":     s.State == outbox.StateSent,
			"state":    string(s.State),
			"attempts": s.Attempts,
			"at":       s.UpdatedAt.UTC().Format(backend.TimeFormat),
		}
		if svc, err := a.proverService(ctx, d); err == nil && svc != nil {
			o["endpoint"] = svc.ServiceEndpoint
		}
		if s.LastError != "" && s.State != outbox.StateSent {
			o["error"] = s.LastError
		}
		if !s.NextAttempt.IsZero() {
			o["nextAttempt"] = s.NextAttempt.UTC().Format(backend.TimeFormat)
		}
		d.Record.Metadata[MetadataAck] = o
		return nil
	})
	// Every local backend sharing the deliverer hears every outcome; one
	// that cannot open the record's key (another key_encryption_key) is
	// not the record's, and its owner notes the outcome.
	if err != nil && !errors.Is(err, backend.ErrNotFound) && !errors.Is(err, keyseal.ErrUnknownKey) {
		a.logger.Warn("noting an ack's outcome on its record", zap.String("proof_record_id", m.RecordID), zap.Error(err))
	}
}

// logDelivery logs a failed delivery in full: the record keeps only its
// category.
func (a *Agent) logDelivery(doc *Doc, err error) {
	if err == nil {
		return
	}
	a.logger.Warn("delivery to the prover failed",
		zap.String("proof_record_id", doc.Record.ID),
		zap.String("category", deliveryCategory(err)),
		zap.Error(err))
}

// Categories of a delivery failure beyond netguard's network ones.
const (
	CategoryNoEndpoint  = "no-endpoint"
	CategoryBadEndpoint = "bad-endpoint"
	CategoryInternal    = "internal"
)

// deliveryCategory is the coarse category of a failed delivery, which is
// all a record shows: endpoint-not-public, unreachable, refused, timeout,
// tls (netguard), http-<status> (the prover's endpoint answered), or
// no-endpoint, bad-endpoint, internal.
func deliveryCategory(err error) string {
	var se *statusError
	switch {
	case errors.Is(err, errNoService):
		return CategoryNoEndpoint
	case errors.Is(err, errBadEndpoint):
		return CategoryBadEndpoint
	case errors.As(err, &se):
		return fmt.Sprintf("http-%d", se.code)
	case errors.Is(err, backend.ErrUnavailable), errors.Is(err, backend.ErrNotFound):
		return CategoryInternal
	}
	return netguard.Category(err)
}
