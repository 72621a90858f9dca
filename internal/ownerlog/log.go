// Package ownerlog remembers which org created each proof record, durably
// and cheaply: concurrent creates share one storage write (group commit)
// of a batch document, and an in-memory index of every remembered record,
// rebuilt from storage at start, answers lookups without reading storage.
//
// The documents live in one storage directory. Batch documents
// (b<time>-<random>.json) hold what one commit wrote; compaction merges
// them into segments (s<time>-<random>.json) so that the number of
// documents, and the work of a start, stays small. Every document is
// {"owners":[entry...],"forgotten":[id...]}: entries never change once
// written, a forgotten id (a tombstone) wins over its entry in any order,
// so documents may be read in any order and an entry held twice (a
// compaction interrupted, or two instances compacting at once) is
// harmless. Instances sharing a storage see each other's records: a
// lookup that misses reads the documents it has not seen yet.
package ownerlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"
)

// Entry is one remembered record: the org that created it, and what an
// operator reading the documents wants to know about it.
type Entry struct {
	ID        string `json:"id"`
	OrgID     string `json:"orgId"`
	Tenant    string `json:"tenant,omitempty"`
	Agent     string `json:"agent,omitempty"` // backend type and url
	ThreadID  string `json:"threadId,omitempty"`
	CreatedAt string `json:"createdAt,omitempty"`
}

// document is what one batch or segment holds.
type document struct {
	Owners    []Entry  `json:"owners"`
	Forgotten []string `json:"forgotten,omitempty"`
}

// Limits and pacing.
const (
	// maxBatch bounds the entries of one commit.
	maxBatch = 512
	// writeTimeout bounds one storage write or read.
	writeTimeout = 15 * time.Second
	// compactAfter is the number of batch documents that starts a
	// compaction; segmentSize the entries of a full segment.
	compactAfter = 256
	segmentSize  = 16384
	// maxDocument bounds a document read back (a full segment is about
	// 3 MiB).
	maxDocument = 32 << 20
)

// Log is the owners of one storage directory. It is safe for concurrent
// use; one Log serves every backend of a process that shares the storage
// (see Acquire).
type Log struct {
	storage certmagic.Storage
	dir     string
	logger  *zap.Logger
	idx     *index

	// docs are the documents read or written, with their entry counts.
	docsMu sync.Mutex
	docs   map[string]int

	commit  committer
	refresh refresher

	compactMu  sync.Mutex
	compacting bool

	// stamp makes document names unique and ordered within the process.
	stampMu sync.Mutex
	stamp   int64
}

// open returns a Log over dir in storage and starts reading what is there.
func open(storage certmagic.Storage, dir string, logger *zap.Logger) *Log {
	if logger == nil {
		logger = zap.NewNop()
	}
	l := &Log{storage: storage, dir: dir, logger: logger, idx: newIndex(), docs: make(map[string]int)}
	l.commit.log = l
	l.refresh.log = l
	l.refresh.request() // the first read of the directory, in the background
	return l
}

// Get returns the org that created record id, from memory.
func (l *Log) Get(id string) (string, bool) { return l.idx.get(id) }

// Adopt puts id's org, learnt elsewhere, into memory (not storage).
func (l *Log) Adopt(id, org string) { l.idx.adopt(id, org) }

// Len is the number of records held in memory.
func (l *Log) Len() int { return l.idx.len() }

// Refresh reads the documents written since the directory was last read
// (by other instances sharing the storage, or before the first read
// finished). It waits for a reading that starts after the call, so a
// record committed anywhere before the call is in memory when it returns
// without error.
func (l *Log) Refresh(ctx context.Context) error {
	return l.refresh.wait(ctx)
}

// Append durably remembers e. It returns once e's batch is stored: with
// many concurrent calls one storage write serves them all.
func (l *Log) Append(e Entry) error {
	return l.commit.submit(pending{entry: e})
}

// Forget durably forgets record id (a tombstone).
func (l *Log) Forget(id string) error {
	return l.commit.submit(pending{entry: Entry{ID: id}, forget: true})
}

// name returns a new document name of kind 'b' (batch) or 's' (segment):
// a nanosecond stamp, increasing within the process, and random bytes so
// that instances never collide.
func (l *Log) name(kind byte) string {
	l.stampMu.Lock()
	now := time.Now().UnixNano()
	if now <= l.stamp {
		now = l.stamp + 1
	}
	l.stamp = now
	l.stampMu.Unlock()
	return fmt.Sprintf("%s/%c%020d-%s.json", l.dir, kind, now, randomHex(4))
}

// isDocument reports whether key names a batch or a segment of this log.
func (l *Log) isDocument(key string) bool {
	base := path.Base(key)
	return path.Dir(key) == l.dir && len(base) > 6 && (base[0] == 'b' || base[0] == 's') && strings.HasSuffix(base, ".json")
}

// isBatch reports whether key names a batch (not a segment).
func isBatch(key string) bool { return path.Base(key)[0] == 'b' }

// read loads and decodes one document.
func (l *Log) read(ctx context.Context, key string) (document, error) {
	var doc document
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	b, err := l.storage.Load(ctx, key)
	if err != nil {
		return doc, err
	}
	if len(b) > maxDocument {
		return doc, fmt.Errorf("ownerlog: %s is %d bytes, more than %d", key, len(b), maxDocument)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return doc, fmt.Errorf("ownerlog: decoding %s: %w", key, err)
	}
	return doc, nil
}

// list returns the documents of the directory (none when it does not
// exist yet).
func (l *Log) list(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	keys, err := l.storage.List(ctx, l.dir, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	docs := keys[:0]
	for _, k := range keys {
		if l.isDocument(k) {
			docs = append(docs, k)
		}
	}
	return docs, nil
}

// load reads every listed document not read yet and forgets the names of
// documents gone (compacted, here or elsewhere: their entries are in a
// segment). A document that vanishes between the listing and its reading
// was compacted; the listing is taken again to find its segment.
func (l *Log) load(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		keys, err := l.list(ctx)
		if err != nil {
			return fmt.Errorf("ownerlog: listing %s: %w", l.dir, err)
		}
		vanished := false
		listed := make(map[string]struct{}, len(keys))
		for _, key := range keys {
			listed[key] = struct{}{}
			if l.known(key) {
				continue
			}
			doc, err := l.read(ctx, key)
			if errors.Is(err, fs.ErrNotExist) {
				vanished = true
				continue
			}
			if err != nil {
				return err
			}
			l.idx.add(doc.Owners, doc.Forgotten)
			l.setDoc(key, len(doc.Owners))
		}
		l.docsMu.Lock()
		for key := range l.docs {
			if _, ok := listed[key]; !ok {
				delete(l.docs, key)
			}
		}
		l.docsMu.Unlock()
		if !vanished || attempt == 2 {
			return nil
		}
	}
}

// store writes doc durably under key and notes it as read.
func (l *Log) store(ctx context.Context, key string, doc document) error {
	if doc.Owners == nil {
		doc.Owners = []Entry{}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	if err := l.storage.Store(ctx, key, b); err != nil {
		return err
	}
	l.setDoc(key, len(doc.Owners))
	return nil
}

func (l *Log) known(key string) bool {
	l.docsMu.Lock()
	defer l.docsMu.Unlock()
	_, ok := l.docs[key]
	return ok
}

func (l *Log) setDoc(key string, entries int) {
	l.docsMu.Lock()
	l.docs[key] = entries
	l.docsMu.Unlock()
}
