// Package store keeps proofgate's JSON documents in Caddy storage (a
// certmagic.Storage: file_system by default, or whatever storage module the
// operators share across a cluster), under the "proofgate/" prefix so they
// never mix with TLS material. I/O failures wrap backend.ErrUnavailable
// (HTTP 503); undecodable documents do not (they are a bug: 500).
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/diskfile"
)

// Prefix is the storage key prefix of everything proofgate stores.
const Prefix = "proofgate"

// ErrNotFound means no document is stored under the key.
var ErrNotFound = errors.New("not found")

// Store reads and writes JSON documents under Prefix/<namespace>/.
type Store struct {
	storage certmagic.Storage
	base    string
}

// New returns a Store for keys under proofgate/<namespace>/ in storage.
func New(storage certmagic.Storage, namespace string) *Store {
	return &Store{storage: storage, base: path.Join(Prefix, namespace)}
}

// Identity names a storage for keying state shared by everything that
// uses it (caddy.UsagePool keys): its String when it has one (certmagic's
// FileStorage gives its path), else its type and address.
func Identity(storage certmagic.Storage) string {
	if s, ok := storage.(fmt.Stringer); ok {
		return fmt.Sprintf("%T %s", storage, s.String())
	}
	return fmt.Sprintf("%T %p", storage, storage)
}

// Key returns the full storage key of name. Names must be single path
// segments; callers pass identifiers they generated or validated.
func (s *Store) Key(name string) string {
	return s.base + "/" + name + ".json"
}

// Put stores v as JSON under name, replacing any earlier document. It is
// one durable write: on certmagic's file_system storage, which syncs the
// file it writes but renames it into place without syncing the
// directory, the directory is synced too. Without that a power loss
// could forget a document written before something that relied on it
// (an ack's outbox message before its record, made durable by the record
// journal, moved to done).
func (s *Store) Put(ctx context.Context, name string, v any) error {
	if !validName(name) {
		return fmt.Errorf("store: invalid key %q", name)
	}
	b, err := Marshal(v)
	if err != nil {
		return fmt.Errorf("store: encoding %s: %w", name, err)
	}
	key := s.Key(name)
	if err := s.storage.Store(ctx, key, b); err != nil {
		return fmt.Errorf("store: writing %s: %w: %w", name, backend.ErrUnavailable, err)
	}
	if files, ok := s.storage.(*certmagic.FileStorage); ok {
		if err := syncDir(filepath.Dir(files.Filename(key))); err != nil {
			return fmt.Errorf("store: writing %s: %w: %w", name, backend.ErrUnavailable, err)
		}
	}
	return nil
}

// syncDir makes a directory's entries durable (a variable for the tests).
var syncDir = diskfile.SyncDir

// Get loads the document stored under name into v. It returns ErrNotFound
// when there is none.
func (s *Store) Get(ctx context.Context, name string, v any) error {
	b, err := s.Load(ctx, name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("store: decoding %s: %w", name, err)
	}
	return nil
}

// Load returns the JSON of the document stored under name, for readers
// that pick from it rather than decode it whole: ErrNotFound when there is
// none.
func (s *Store) Load(ctx context.Context, name string) ([]byte, error) {
	if !validName(name) {
		return nil, ErrNotFound
	}
	b, err := s.storage.Load(ctx, s.Key(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: reading %s: %w: %w", name, backend.ErrUnavailable, err)
	}
	return b, nil
}

// Delete removes the document stored under name; a missing one is not an
// error (some storage modules report fs.ErrNotExist anyway).
func (s *Store) Delete(ctx context.Context, name string) error {
	if !validName(name) {
		return nil
	}
	err := s.storage.Delete(ctx, s.Key(name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: deleting %s: %w: %w", name, backend.ErrUnavailable, err)
	}
	return nil
}

// List returns the names of the documents stored directly in this store.
func (s *Store) List(ctx context.Context) ([]string, error) {
	keys, err := s.storage.List(ctx, s.base, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: listing %s: %w: %w", s.base, backend.ErrUnavailable, err)
	}
	names := make([]string, 0, len(keys))
	for _, k := range keys {
		name, ok := strings.CutSuffix(path.Base(k), ".json")
		if ok {
			names = append(names, name)
		}
	}
	return names, nil
}

// Storage returns the underlying Caddy storage (for locking).
func (s *Store) Storage() certmagic.Storage { return s.storage }

func validName(name string) bool {
	if name == "" || len(name) > 200 {
		return false
	}
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return name != "." && name != ".."
}
