// Package recordlog keeps proof records in a journal: append-only files
// in one directory on disk, written by one process, with every record's
// place held in memory. A record written or changed is one line appended;
// concurrent writers share one write and one fdatasync (group commit), so
// a create costs a share of a sync instead of a new file, its own fsync
// and a rename each. A read is one pread of the record's bytes, which are
// those of the document a per-record file would hold.
//
// Lines are {"id":"<uuid>","v":<version>,"doc":<document>} or, when a
// record is deleted, {"id":"<uuid>","v":<version>,"deleted":true}. A
// record's version grows with each write; the highest wins when the files
// are read back at start, whatever file holds it, and a deletion wins over
// every version up to its own. So a line held twice (a compaction
// interrupted) is harmless, and a torn last line (a crash during a write
// that was never acknowledged) is skipped.
//
// Files are named by a sequence number (<seq>.jsonl). A process appends to
// a file it starts itself, never to one read back, and starts another
// after segmentMax bytes, scrubAfter or a failed write. Compaction copies
// the current records of a file that is mostly superseded, small, or held
// a superseded line for scrubAfter (so deleted records leave the disk) to
// the end of the journal, through the same commits, and then removes the
// file. Every record's place is in memory (index.go). A lock file keeps a
// second process out: instances that share a storage keep per-record
// documents instead (the local verifier's cluster option).
package recordlog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/diskfile"
	"github.com/proofgate/proofgate/internal/groupcommit"
	"github.com/proofgate/proofgate/internal/metrics"
)

// segmentMax is the size after which a file is finished and the next
// write starts another (a variable for the tests).
var segmentMax int64 = 64 << 20

const (
	// maxBatch bounds the records of one commit.
	maxBatch = 256
	// maxDoc bounds one record (a proof record is a few KiB; one holding a
	// presentation at most a few MiB).
	maxDoc   = 8 << 20
	lockName = "lock"
	suffix   = ".jsonl"
)

// syncDir makes a directory's new or removed names durable (a variable
// for the tests, which make it fail or note it).
var syncDir = diskfile.SyncDir

// ErrInUse means another process holds the journal.
var ErrInUse = errors.New("recordlog: the journal is in use by another process")

// loc is where the current version of a record is: 16 bytes, as one is
// held for every record (index.go).
// Offsets fit in 32 bits: a file is finished at segmentMax, and one batch
// adds at most maxBatch documents of maxDoc.
type loc struct {
	seg uint32 // the file's sequence number
	n   uint32 // the document's length
	ver uint32
	off uint32 // the document's offset in the file
}

// lineLen is the length of the whole line holding the document at l.
func (l loc) lineLen() int64 {
	return int64(len(`{"id":"`)+36+len(`","v":`)+digits(l.ver)+len(`,"doc":`)) + int64(l.n) + int64(len("}\n"))
}

func digits(v uint32) int {
	n := 1
	for v >= 10 {
		v /= 10
		n++
	}
	return n
}

// segment is one file of the journal.
type segment struct {
	seq  uint32
	f    *os.File
	w    *diskfile.Prefilled // where batches go (the current file only)
	size int64               // bytes of whole lines
	live int64               // bytes of lines holding a current version
	// tombs are the deletions this file holds, with their versions: they
	// must outlive every older file, which may hold what they delete.
	tombs map[uuid.UUID]uint32
	// opened is when this process started the file (zero for one read
	// back); garbageAt is when a line of it first stopped being current,
	// superseded or deleted (zero: every line is current).
	opened, garbageAt time.Time
	// removing: compacted and closed, but its removal failed or is not
	// yet durable. It is kept as a file still on disk (an older file for
	// the deletions of newer ones, its own deletions in floor) until a
	// later compaction removes it (compact.go).
	removing bool
}

// op is one line to write.
type op struct {
	id  uuid.UUID
	doc []byte // nil: a deletion
	// move is a compaction's copy: written only while from is still the
	// record's current place, with its version kept.
	move bool
	from loc
	// carry is a compaction's copy of a deletion, with its version, or,
	// with repair, a line that restates an id above a failed write's
	// version (repair.go).
	carry  bool
	repair bool
	ver    uint32
	// nop writes nothing: it asks for a batch, which carries the repairs.
	nop bool
}

// Log is one open journal.
type Log struct {
	dir    string
	logger *zap.Logger
	lock   *os.File

	mu    sync.RWMutex
	index *index
	segs  map[uint32]*segment
	cur   *segment // the file appended to; nil before the first write
	// writing is the file a batch is being written to, l.mu released, its
	// lines not yet in memory: neither finished by the scrub nor compacted
	// meanwhile (a compaction would read the file without the batch).
	writing *segment
	next    uint32 // the next file's sequence number

	commit groupcommit.Committer[op]
	buf    []byte // the batch being written (the committer's goroutine)

	stopReport func() // the metrics' hold on the Log
	stopScrub  func() // stops the scrub timer
	now        func() time.Time

	compacting sync.WaitGroup
	busy       bool      // a compaction runs (under mu)
	retryAt    time.Time // no compaction before (one failed; under mu)
	closed     bool      // under mu
	// written is signalled (on mu) when a batch in flight is done, so
	// that Close waits for it: the batch writes and syncs without mu,
	// on the file Close would close.
	written *sync.Cond

	// burned are the ids of failed writes, with the highest version each
	// may have left on disk; repairs are those still to be restated
	// (repair.go). Under mu; nil until a write fails.
	burned  map[uuid.UUID]uint32
	repairs map[uuid.UUID]struct{}
	kick    chan struct{} // asks the scrub goroutine for a repair
}

// Open takes the journal in dir (created if missing) for this process and
// reads it back: ErrInUse when another process holds it.
func Open(dir string, logger *zap.Logger) (*Log, error) {
	if logger == nil {
		logger = zap.NewNop()
	}
	if err := makeDir(dir); err != nil {
		return nil, err
	}
	lock, err := diskfile.LockExclusive(filepath.Join(dir, lockName))
	if errors.Is(err, diskfile.ErrLocked) {
		return nil, fmt.Errorf("%w (%s)", ErrInUse, dir)
	}
	if err != nil {
		return nil, err
	}
	l := &Log{dir: dir, logger: logger, lock: lock, index: newIndex(), segs: make(map[uint32]*segment), next: 1, kick: make(chan struct{}, 1)}
	l.written = sync.NewCond(&l.mu)
	l.commit.Write, l.commit.Max = l.writeBatch, maxBatch
	l.now = time.Now
	if err := l.replay(); err != nil {
		l.closeFiles()
		return nil, err
	}
	l.stopReport = metrics.ReportJournal(l.stats)
	l.startScrub()
	return l, nil
}

// makeDir creates dir and its missing parents (os.MkdirAll), durably: a
// new directory's name is an entry of its parent, which a power loss can
// forget as it would a new file's, and with it every record written below
// it. So the parent of each directory created is synced before Open
// returns, before any write relies on it (the files' own names are synced
// as each is created).
func makeDir(dir string) error {
	var made []string
	for d := filepath.Clean(dir); ; {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			break
		}
		made = append(made, d)
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, d := range made {
		if err := syncDir(filepath.Dir(d)); err != nil {
			return err
		}
	}
	return nil
}

// stats returns the records held and the bytes of the files' lines (not
// the zeros the current file holds ahead of them).
func (l *Log) stats() (records int, size int64) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	for _, s := range l.segs {
		size += s.size
	}
	return l.index.len(), size
}

// Close waits for a compaction under way, closes the files and releases
// the journal; a second Close does nothing. Writes must have returned.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	if l.stopScrub != nil {
		l.stopScrub()
	}
	l.compacting.Wait()
	if l.stopReport != nil {
		l.stopReport()
	}
	l.closeFiles()
	return nil
}

func (l *Log) closeFiles() {
	l.mu.Lock()
	defer l.mu.Unlock()
	// A batch that began before Close (the committer's, or a repair no
	// caller waits for) is still writing or syncing its file.
	for l.writing != nil {
		l.written.Wait()
	}
	l.finishCurrent()
	for _, s := range l.segs {
		_ = s.f.Close()
	}
	if l.lock != nil {
		_ = l.lock.Close()
	}
}

// Put stores doc (a JSON object on one line: no raw newline, no NUL byte,
// nothing around its braces) as the current version of id, durably: nil
// once it is on disk.
//
// What the journal could not read back is refused, not acknowledged: a
// newline would split the line, a NUL reads as the zeros filled ahead of
// the lines (the file's lines end there, this one and every later one),
// and a line whose document is not from '{' to '}' is skipped as
// unreadable (parseLine). The JSON itself is not parsed: the callers
// marshal it, and this runs on every write.
func (l *Log) Put(id uuid.UUID, doc []byte) error {
	switch {
	case len(doc) > maxDoc:
		return fmt.Errorf("recordlog: a document of %d bytes is over the limit of %d", len(doc), maxDoc)
	case len(doc) < 2 || doc[0] != '{' || doc[len(doc)-1] != '}':
		return errors.New("recordlog: a document must be a JSON object, from its '{' to its '}'")
	case bytes.IndexByte(doc, '\n') >= 0:
		return errors.New("recordlog: a document must be one line of JSON: it holds a raw newline")
	case bytes.IndexByte(doc, 0) >= 0:
		return errors.New("recordlog: a document must not hold a NUL byte")
	}
	return l.commit.Submit(op{id: id, doc: doc})
}

// Delete removes id durably (a deletion is written even for an id not
// held: a write that failed may still have reached the disk).
func (l *Log) Delete(id uuid.UUID) error {
	return l.commit.Submit(op{id: id})
}

// Has reports whether id is held.
func (l *Log) Has(id uuid.UUID) bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	_, ok := l.index.get(id)
	return ok
}

// Get returns the current document of id; ok is false when none is held.
func (l *Log) Get(id uuid.UUID) (doc []byte, ok bool, err error) {
	for range 3 {
		l.mu.RLock()
		at, found := l.index.get(id)
		var f *os.File
		if found {
			f = l.segs[at.seg].f
		}
		l.mu.RUnlock()
		if !found {
			return nil, false, nil
		}
		doc = make([]byte, at.n)
		_, err = f.ReadAt(doc, int64(at.off))
		if err == nil {
			return doc, true, nil
		}
		if !errors.Is(err, os.ErrClosed) {
			return nil, false, err
		}
		// A compaction moved the record and removed its file meanwhile.
	}
	return nil, false, err
}

// IDs returns the ids held, in no order.
func (l *Log) IDs() []uuid.UUID {
	l.mu.RLock()
	defer l.mu.RUnlock()
	ids := make([]uuid.UUID, 0, l.index.len())
	l.index.each(func(id uuid.UUID, _ loc) { ids = append(ids, id) })
	return ids
}

// Len returns how many records are held.
func (l *Log) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.index.len()
}

// segmentFiles lists the journal's files by sequence number.
func segmentFiles(dir string) ([]uint32, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var seqs []uint32
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), suffix)
		if !ok || e.IsDir() {
			continue
		}
		n, err := strconv.ParseUint(name, 10, 32)
		if err != nil || n == 0 {
			continue
		}
		seqs = append(seqs, uint32(n))
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	return seqs, nil
}

func (l *Log) path(seq uint32) string {
	return filepath.Join(l.dir, fmt.Sprintf("%010d%s", seq, suffix))
}
