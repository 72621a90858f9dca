package recordlog

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/diskfile"
)

// drainWait is how long Drain waits for a journal another process holds.
var drainWait = 10 * time.Second

// pool keeps one Log per directory across config reloads: the old and the
// new module instance of a reload share it (they hold one lock).
var pool = caddy.NewUsagePool()

// Acquire returns the Log of dir, opening it on first use. Each Acquire
// that succeeds must be paired with one Release.
func Acquire(dir string, logger *zap.Logger) (*Log, error) {
	val, _, err := pool.LoadOrNew(dir, func() (caddy.Destructor, error) {
		return Open(dir, logger)
	})
	if err != nil {
		return nil, err
	}
	return val.(*Log), nil
}

// Release drops one hold on l; the last closes it.
func Release(l *Log) {
	_, _ = pool.Delete(l.dir)
}

// Destruct implements caddy.Destructor.
func (l *Log) Destruct() error { return l.Close() }

// removeFile removes a drained file (a variable for the tests, which make
// a removal fail).
var removeFile = os.Remove

// Drain moves every record of the journal in dir to put (a per-record
// document each), then removes the journal's files: what an instance that
// starts with per-record documents does with a journal an earlier
// configuration kept. It returns how many records it moved; a missing
// journal moves none. A failed put leaves the journal as it was, with the
// documents already written (they hold the same versions).
//
// settle, when not nil, makes the documents durable where put alone does
// not (certmagic's file_system storage renames each into place without
// syncing its directory); it runs after the last put and before anything
// is removed, since a crash must not keep the journal's removal and lose
// the documents' names. Its error, too, leaves the journal.
func Drain(dir string, logger *zap.Logger, put func(id uuid.UUID, doc []byte) error, settle func() error) (int, error) {
	seqs, err := segmentFiles(dir)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(seqs) == 0) {
		return 0, nil // nothing to move, and no lock taken: instances start together
	}
	if err != nil {
		return 0, err
	}
	if _, loaded := pool.References(dir); loaded {
		return 0, fmt.Errorf("%w: this process keeps it open; restart to change how records are kept", ErrInUse)
	}
	// Another instance starting with cluster may be moving it now: wait
	// for it a while (a process keeping the journal keeps it longer).
	var l *Log
	for deadline := time.Now().Add(drainWait); ; time.Sleep(50 * time.Millisecond) {
		l, err = Open(dir, logger)
		if !errors.Is(err, ErrInUse) || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		return 0, err
	}
	defer l.Close()
	n := 0
	if err := l.forEachLive(func(id uuid.UUID, doc []byte) error {
		n++
		return put(id, doc)
	}); err != nil {
		return 0, err
	}
	if n > 0 && settle != nil {
		if err := settle(); err != nil {
			return 0, fmt.Errorf("making the moved records durable: %w", err)
		}
	}
	// The files go oldest first, each durably (the directory synced after
	// each): a crash or a failed removal then leaves only newer files,
	// whose lines are the newest of every record they name, so a second
	// drain cannot bring back a version, or a deleted record, that a
	// removed newer file superseded. (Removed in map order, an older file
	// could outlive the newer one holding a record's deletion.) Durably
	// gone, too, because a journal file that came back after a crash
	// would be drained again, over documents changed since.
	l.mu.Lock() // nothing writes to a drained Log: no compaction can run
	defer l.mu.Unlock()
	order := make([]uint32, 0, len(l.segs))
	for seq := range l.segs {
		order = append(order, seq)
	}
	slices.Sort(order)
	for _, seq := range order {
		s := l.segs[seq]
		_ = s.f.Close()
		delete(l.segs, seq)
		// A compacted file whose directory sync failed may be gone already.
		if err := removeFile(s.f.Name()); err != nil && !errors.Is(err, os.ErrNotExist) {
			return n, fmt.Errorf("removing the drained journal file %s: %w", s.f.Name(), err)
		}
		if err := diskfile.SyncDir(dir); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Snapshot reads the records a journal in dir holds now, without taking
// it: for tools and tests beside a running process (each file is read up
// to its last whole line). A missing journal holds none.
func Snapshot(dir string) (map[uuid.UUID][]byte, error) {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return map[uuid.UUID][]byte{}, nil
	}
	l := &Log{dir: dir, logger: zap.NewNop(), index: newIndex(), segs: make(map[uint32]*segment), now: time.Now}
	defer l.closeFiles()
	if err := l.replay(); err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID][]byte, l.index.len())
	return out, l.forEachLive(func(id uuid.UUID, doc []byte) error {
		out[id] = doc
		return nil
	})
}

// forEachLive calls fn with every record held, reading each from disk.
func (l *Log) forEachLive(fn func(id uuid.UUID, doc []byte) error) error {
	for _, id := range l.IDs() {
		doc, ok, err := l.Get(id)
		if err != nil {
			return err
		}
		if ok {
			if err := fn(id, doc); err != nil {
				return err
			}
		}
	}
	return nil
}
