package proofs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/caddyserver/certmagic"
	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/diskfile"
	"github.com/proofgate/proofgate/internal/recordlog"
	"github.com/proofgate/proofgate/internal/store"
)

// recordStore is where a Service keeps its records: per-record documents
// in Caddy storage (*store.Store), or the record journal (journaled).
// Names are record ids.
type recordStore interface {
	Put(ctx context.Context, name string, v any) error
	Load(ctx context.Context, name string) ([]byte, error)
	Delete(ctx context.Context, name string) error
	List(ctx context.Context) ([]string, error)
}

// JournalDir is where, under a file_system storage's root, the record
// journal lives (internal/recordlog).
const JournalDir = store.Prefix + "/records-journal"

// openRecords chooses how records are kept. On certmagic's file_system
// storage one instance keeps them in the record journal: a create is a
// share of one group-committed append, not a new file with its own fsync
// and rename. Instances sharing a storage (cluster) and every other
// storage module keep one document per record, which any instance can read
// and lock; a journal an earlier configuration kept is first moved into
// such documents. Records stored as documents stay readable from the
// journal's side too (they were written before it), until they are
// written again or deleted.
func openRecords(storage certmagic.Storage, cluster bool, logger *zap.Logger) (recordStore, *recordlog.Log, error) {
	docs := store.New(storage, "records")
	files, ok := storage.(*certmagic.FileStorage)
	if !ok {
		return docs, nil, nil
	}
	dir := files.Filename(JournalDir)
	if cluster {
		n, err := recordlog.Drain(dir, logger, func(id uuid.UUID, doc []byte) error {
			return docs.Put(context.Background(), id.String(), json.RawMessage(doc))
		}, func() error {
			// FileStorage renames each document into place and leaves the
			// directory unsynced: its entries must be durable before the
			// journal's removal is.
			return diskfile.SyncDir(files.Filename(store.Prefix + "/records"))
		})
		if err != nil {
			return nil, nil, fmt.Errorf("moving the record journal %s into per-record documents for cluster: %w", dir, err)
		}
		if n > 0 {
			logger.Info("record journal moved into per-record documents (cluster)", zap.String("journal", dir), zap.Int("records", n))
		}
		return docs, nil, nil
	}
	log, err := recordlog.Acquire(dir, logger)
	if errors.Is(err, recordlog.ErrInUse) {
		return nil, nil, fmt.Errorf("%w: instances that share a storage must all set cluster", err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("opening the record journal: %w", err)
	}
	return journaled{log: log, docs: docs, docsDir: files.Filename(store.Prefix + "/records")}, log, nil
}

// journaled keeps records in the journal and still reads, and deletes,
// per-record documents written before it.
type journaled struct {
	log  *recordlog.Log
	docs *store.Store
	// docsDir is the per-record documents' directory, synced after one
	// of them is deleted.
	docsDir string
}

func (j journaled) Put(ctx context.Context, name string, v any) error {
	id, ok := ParseID(name)
	if !ok {
		return fmt.Errorf("proofs: invalid record id %q", name)
	}
	b, err := store.Marshal(v)
	if err != nil {
		return fmt.Errorf("proofs: encoding record %s: %w", name, err)
	}
	if err := j.log.Put(id, b); err != nil {
		return fmt.Errorf("proofs: writing record %s: %w: %w", name, backend.ErrUnavailable, err)
	}
	return nil
}

func (j journaled) Load(ctx context.Context, name string) ([]byte, error) {
	id, ok := ParseID(name)
	if !ok {
		return nil, store.ErrNotFound
	}
	b, found, err := j.log.Get(id)
	if err != nil {
		return nil, fmt.Errorf("proofs: reading record %s: %w: %w", name, backend.ErrUnavailable, err)
	}
	if found {
		return b, nil
	}
	return j.docs.Load(ctx, name)
}

// Delete removes a per-record document of the same id, durably, then
// writes a deletion to the journal even for a record it does not hold (a
// write that failed may still have reached the disk). In that order: the
// journal does not remember what it deleted, so Load, finding nothing
// there, would read an older document left behind by a failure or a
// crash between the two, and the record would come back as it was before
// the journal.
func (j journaled) Delete(ctx context.Context, name string) error {
	id, ok := ParseID(name)
	if !ok {
		return nil
	}
	if j.docs.Storage().Exists(ctx, j.docs.Key(name)) {
		if err := j.docs.Delete(ctx, name); err != nil {
			return err
		}
		// FileStorage unlinks without syncing the directory.
		if err := diskfile.SyncDir(j.docsDir); err != nil {
			return fmt.Errorf("proofs: deleting record %s: %w: %w", name, backend.ErrUnavailable, err)
		}
	}
	if err := j.log.Delete(id); err != nil {
		return fmt.Errorf("proofs: deleting record %s: %w: %w", name, backend.ErrUnavailable, err)
	}
	return nil
}

func (j journaled) List(ctx context.Context) ([]string, error) {
	names, err := j.docs.List(ctx)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]struct{}, len(names))
	for _, n := range names {
		seen[n] = struct{}{}
	}
	for _, id := range j.log.IDs() {
		// A document written before the journal and written again since
		// is in both; the journal's is current.
		if _, ok := seen[id.String()]; !ok {
			names = append(names, id.String())
		}
	}
	return names, nil
}
