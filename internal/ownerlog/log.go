// Package ownerlog remembers which org created each proof record, durably
// and cheaply: concurrent creates share one storage write (group commit)
// of a batch document, and an in-memory index of every remembered record,
// rebuilt from storage at start, answers lookups without reading storage.
//
// The documents live in one storage directory. On certmagic's file_system
// storage each process appends its commits, one document per line, to a
// file of its own (a<time>-<random>.jsonl: an append and an fdatasync per
// commit, no file created); on any other storage each commit is a batch
// document (b<time>-<random>.json). Compaction merges batches, and the
// small files of processes long gone, into segments (s<time>-<random>.json)
// so that the number of documents, and the work of a start, stays small.
// Every document is {"owners":[entry...],"forgotten":[id...]}: entries
// never change once
// written, a forgotten id (a tombstone) wins over its entry in any order,
// so documents may be read in any order and an entry held twice (a
// compaction interrupted, or two instances compacting at once) is
// harmless. Instances sharing a storage see each other's records: a
// lookup that misses reads the documents it has not seen yet. With a
// retention, records older than it are not found, and are removed from
// memory and storage by a pass every few minutes (expire.go).
package ownerlog

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/groupcommit"
	"github.com/proofgate/proofgate/internal/metrics"
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
	// RequestType is the request's type (backend.RequestIndy or
	// backend.RequestPresentationExchange): a backend that must re-check
	// one type of presentation at accept knows which records to check
	// without asking the agent. Empty in entries of earlier versions.
	RequestType string `json:"requestType,omitempty"`
}

// document is what one batch or segment holds. ForgottenAt gives, for
// each forgotten id at the same index, when it was forgotten (Unix
// seconds). It came after Forgotten: a document without it (or with fewer
// times) dates its tombstones by its name (docTime), and a reader that
// does not know it still reads the ids.
type document struct {
	Owners      []Entry  `json:"owners"`
	Forgotten   []string `json:"forgotten,omitempty"`
	ForgottenAt []int64  `json:"forgottenAt,omitempty"`
}

// entries returns how many owners and tombstones doc holds: what fills a
// segment.
func (doc document) entries() int { return len(doc.Owners) + len(doc.Forgotten) }

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

	// docs are the documents read or written.
	docsMu sync.Mutex
	docs   map[string]docState

	// appender writes commits on file_system storage (nil on others).
	appender *appender

	commit  groupcommit.Committer[pending]
	refresh refresher

	compactMu   sync.Mutex
	compacting  bool
	compactions sync.WaitGroup

	// holds are the retentions asked by holders, with their counts.
	holdsMu  sync.Mutex
	holds    map[time.Duration]int
	expiring sync.WaitGroup
	// expired counts the records removed past the retention.
	expired atomic.Uint64
	// stopReport ends the Log's report to the metrics.
	stopReport func()

	// background ends with the Log (Destruct), stopping a compaction and
	// the expiry passes.
	background context.Context
	stop       context.CancelFunc

	// stamp makes document names unique and ordered within the process.
	stampMu sync.Mutex
	stamp   int64
}

// docState is what has been read of one document: its entries (owners
// and tombstones; the appender counts only the owners of its own file,
// what it starts a new file on) and, for an append file, the bytes of
// lines read so far (more may come), and the file's size and modification
// time taken just before that reading, at statAt (zero when storage could
// not tell them). An unreadable document (errUnreadable) is not read
// again, nor merged.
type docState struct {
	entries    int
	size       int
	unreadable bool

	fileSize int64
	modified time.Time
	statAt   time.Time
}

// open returns a Log over dir in storage, held with retentions (hold),
// and starts reading what is there: after the holds, so that the first
// reading already leaves records past the retention out of memory.
func open(storage certmagic.Storage, dir string, logger *zap.Logger, retentions ...time.Duration) *Log {
	if logger == nil {
		logger = zap.NewNop()
	}
	l := &Log{storage: storage, dir: dir, logger: logger, idx: newIndex(), docs: make(map[string]docState),
		holds: make(map[time.Duration]int)}
	l.background, l.stop = context.WithCancel(context.Background())
	l.stopReport = metrics.ReportOwners(func() (int, uint64) { return l.idx.len(), l.expired.Load() })
	l.expiring.Add(1)
	go l.expireLoop()
	if files, ok := storage.(*certmagic.FileStorage); ok {
		l.appender = &appender{log: l, path: files.Filename(dir)}
	}
	l.commit.Write, l.commit.Max = l.writeBatch, maxBatch
	l.refresh.log = l
	for _, r := range retentions {
		l.hold(r)
	}
	l.refresh.request() // the first read of the directory, in the background
	return l
}

// Get returns the org that created record id, from memory.
func (l *Log) Get(id string) (string, bool) { return l.idx.get(id) }

// Owner is who made a record: the org, the org's tenant ("" for an
// agent's base wallet) and the agent it was made on (the backend type and
// url, as Entry.Agent), and the request's type (Entry.RequestType).
type Owner struct {
	OrgID, Tenant, Agent, RequestType string
}

// owner is who made e's record.
func (e *Entry) owner() Owner {
	return Owner{OrgID: e.OrgID, Tenant: e.Tenant, Agent: e.Agent, RequestType: e.RequestType}
}

// Owner returns who made record id, from memory.
func (l *Log) Owner(id string) (Owner, bool) { return l.idx.getOwner(id) }

// Known reports whether id is known in memory: it has an owner (expired
// or not), was forgotten, or is being remembered (Start). An id a create
// did not claim is not the create's to clean up when it is known.
func (l *Log) Known(id string) bool { return l.idx.known(id) }

// Adopt puts e's org, learnt elsewhere, into memory (not storage), unless
// e has expired or was forgotten; it reports whether it did.
func (l *Log) Adopt(e Entry) bool { return l.idx.adopt(e) }

// Refresh reads the documents written since the directory was last read
// (by other instances sharing the storage, or before the first read
// finished). It waits for a reading that starts after the call, so a
// record committed anywhere before the call is in memory when it returns
// without error.
func (l *Log) Refresh(ctx context.Context) error {
	return l.refresh.wait(ctx)
}

// ErrTaken is Append's and Start's refusal of an id that already has an
// owner, was forgotten, or is being remembered by another call: an owner
// is only ever added, never replaced.
var ErrTaken = errors.New("ownerlog: the record id already has an owner or was forgotten")

// Append durably remembers e, a record just created, or refuses its id
// (ErrTaken). It returns once e's batch is stored: with many concurrent
// calls one storage write serves them all.
func (l *Log) Append(e Entry) error {
	t, err := l.Start(e)
	if err != nil {
		return err
	}
	return t.Wait()
}

// Start begins remembering e durably and returns at once, or refuses e's
// id (ErrTaken) as Append does: the ticket's Wait returns once e's batch is
// stored. A caller can make a network call meanwhile. The id is claimed
// from the start, so that two calls with one id never both succeed;
// only ids this process has read are known (a lookup that misses reads
// the rest, a create does not: it must stay one map lookup).
func (l *Log) Start(e Entry) (groupcommit.Ticket, error) {
	if !l.idx.claim(e.ID) {
		return groupcommit.Ticket{}, ErrTaken
	}
	return l.commit.Start(pending{entry: e}), nil
}

// Forget durably forgets record id (a tombstone).
func (l *Log) Forget(id string) error {
	return l.commit.Submit(pending{entry: Entry{ID: id}, forget: true, at: unixSeconds(time.Now().Unix())})
}

// name returns a new document name of kind 'b' (batch), 's' (segment) or
// 'a' (append file): a nanosecond stamp, increasing within the process,
// and random bytes so that instances never collide.
func (l *Log) name(kind byte) string {
	l.stampMu.Lock()
	now := time.Now().UnixNano()
	if now <= l.stamp {
		now = l.stamp + 1
	}
	l.stamp = now
	l.stampMu.Unlock()
	ext := ".json"
	if kind == 'a' {
		ext = ".jsonl"
	}
	return fmt.Sprintf("%s/%c%020d-%s%s", l.dir, kind, now, randomHex(4), ext)
}

// isDocument reports whether key names a document of this log.
func (l *Log) isDocument(key string) bool {
	if path.Dir(key) != l.dir {
		return false
	}
	base := path.Base(key)
	switch {
	case len(base) < 22:
		return false
	case base[0] == 'b' || base[0] == 's':
		return strings.HasSuffix(base, ".json")
	case base[0] == 'a':
		return strings.HasSuffix(base, ".jsonl")
	}
	return false
}

// kindOf returns the kind of a document's key: 'b', 's' or 'a'.
func kindOf(key string) byte { return path.Base(key)[0] }

// stampOf returns the time in a document's name.
func stampOf(key string) time.Time {
	base := path.Base(key)
	n, err := strconv.ParseInt(base[1:21], 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// store writes doc durably under key and notes it as read.
func (l *Log) store(ctx context.Context, key string, doc document) error {
	if doc.Owners == nil {
		doc.Owners = []Entry{}
	}
	b := appendDocument(nil, doc)
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	if err := l.storage.Store(ctx, key, b); err != nil {
		return err
	}
	l.setDoc(key, docState{entries: doc.entries()})
	return nil
}

func (l *Log) known(key string) bool {
	_, ok := l.docState(key)
	return ok
}

func (l *Log) docState(key string) (docState, bool) {
	l.docsMu.Lock()
	defer l.docsMu.Unlock()
	st, ok := l.docs[key]
	return st, ok
}

func (l *Log) setDoc(key string, st docState) {
	l.docsMu.Lock()
	l.docs[key] = st
	l.docsMu.Unlock()
}
