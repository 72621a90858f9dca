package local

import (
	"context"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/outbox"
	"github.com/proofgate/proofgate/internal/proofs"
	"github.com/proofgate/proofgate/internal/sweeper"
)

// Interface guards of the record lifecycle.
var (
	_ backend.ChangeReporter = (*Local)(nil)
	_ backend.RecordReader   = (*Local)(nil)
)

// acquireAcks attaches the backend to the pooled deliverer of the acks
// outbox on storage: it survives config reloads, and the newest config's
// agent delivers (outbox.Deliverer.Handle).
func (l *Local) acquireAcks(storage certmagic.Storage) (*outbox.Deliverer, error) {
	key := outbox.StorageKey(storage, proofs.AckNamespace)
	logger := l.logger.Named("acks")
	d, err := outbox.Acquire(key, func() (*outbox.Deliverer, error) {
		return proofs.NewAckDeliverer(storage, logger, nil), nil
	})
	if err != nil {
		return nil, err
	}
	l.acksKey = key
	return d, nil
}

// releaseAcks drops this config's hold on the ack deliverer.
func (l *Local) releaseAcks() error {
	if l.acksKey == "" {
		return nil
	}
	err := outbox.Release(l.acksKey)
	l.acksKey = ""
	return err
}

// SetChangeSink implements backend.ChangeReporter: every transition of a
// local record is reported.
func (l *Local) SetChangeSink(sink backend.ChangeSink) { l.svc.SetChangeSink(sink) }

// GetProofRecord implements backend.RecordReader: the record from storage.
func (l *Local) GetProofRecord(ctx context.Context, org backend.Org, proofRecordID string) (backend.ProofRecord, error) {
	rec, err := l.svc.LoadRecord(ctx, proofRecordID)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	if rec.OrgID != org.ID {
		return backend.ProofRecord{}, backend.ErrNotFound
	}
	return rec, nil
}

// SweepTasks is the local verifier's part of the sweeper: records past
// record_retention, invitations past invitation_ttl.
func (l *Local) SweepTasks() []sweeper.Task { return []sweeper.Task{l.svc.SweepTask()} }

// Reached implements backend.ChangeConfirmer.
func (l *Local) Reached(ctx context.Context, proofRecordID, state string) (bool, error) {
	return l.svc.Reached(ctx, proofRecordID, state)
}

var _ backend.ChangeConfirmer = (*Local)(nil)
