package recordlog

import (
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"
)

// A failed batch may still have reached the disk: its fdatasync failed
// after the write, and the truncate that takes it back can fail too, or
// not last through a crash. Read back at the next start, such a line would
// outrank the record's durable state, and a transition the caller was told
// had failed would come back. So the versions of a failed batch are burned:
// a later write of the id goes above them, and until one has, a repair
// restates the id's durable state above them (its current document again,
// or a deletion when none is held) at the head of the next batch. The
// repair's own batch is asked for at once, and again every second while it
// fails.

// repairRetry is how long a failing repair waits before it is tried again.
var repairRetry = time.Second

// burn notes the lines of a failed batch. A compaction's copies are left
// out: each restates, at its own version, what the disk already holds.
// l.mu is held.
func (l *Log) burn(done []placed) {
	for _, p := range done {
		if p.op.move || (p.op.carry && !p.op.repair) {
			continue
		}
		if l.burned == nil {
			l.burned, l.repairs = make(map[uuid.UUID]uint32), make(map[uuid.UUID]struct{})
		}
		if p.at.ver > l.burned[p.op.id] {
			l.burned[p.op.id] = p.at.ver
		}
		l.repairs[p.op.id] = struct{}{}
	}
}

// settle notes a durable line: one at or above a burned version makes the
// repair of its id unneeded. A deletion keeps the burned version as the
// floor of a later write of the id, which the index no longer holds.
// l.mu is held.
func (l *Log) settle(p placed) {
	b, ok := l.burned[p.op.id]
	if !ok || p.at.ver < b {
		return
	}
	delete(l.repairs, p.op.id)
	if p.op.doc != nil {
		delete(l.burned, p.op.id)
	}
}

// floor is the version a write of id must go above. l.mu is held.
//
// A held record's version is above its every deletion still on disk;
// one not held may have been deleted, and its deletion, kept in a file,
// would win over a write at or below its version when the journal is read
// back. Ids are seldom written again after a deletion, but Put promises a
// durable write whatever the id.
func (l *Log) floor(id uuid.UUID, held loc) uint32 {
	f := max(held.ver, l.burned[id])
	if held.ver == 0 {
		for _, s := range l.segs {
			f = max(f, s.tombs[id])
		}
	}
	return f
}

// repairOps are the lines that restate each id awaiting repair. A document
// that cannot be read now is tried with the next batch. l.mu is held.
func (l *Log) repairOps() []op {
	var out []op
	for id := range l.repairs {
		b := l.burned[id]
		at, held := l.index.get(id)
		if !held {
			out = append(out, op{id: id, carry: true, repair: true, ver: b})
			continue
		}
		doc := make([]byte, at.n)
		if _, err := l.segs[at.seg].f.ReadAt(doc, int64(at.off)); err != nil {
			continue
		}
		out = append(out, op{id: id, doc: doc, carry: true, repair: true, ver: b + 1})
	}
	return out
}

// askRepair has the scrub goroutine submit a batch for the repairs.
func (l *Log) askRepair() {
	select {
	case l.kick <- struct{}{}:
	default: // one is asked for already
	}
}

// repair submits an empty op, whose batch carries the pending repairs; while
// it fails it asks again after repairRetry.
func (l *Log) repair() {
	l.mu.RLock()
	pending := len(l.repairs)
	closed := l.closed
	l.mu.RUnlock()
	if pending == 0 || closed {
		return
	}
	if err := l.commit.Submit(op{nop: true}); err != nil {
		l.logger.Warn("the record journal could not restate records after a failed write; retrying in a second",
			zap.Int("records", pending), zap.Error(err))
		time.AfterFunc(repairRetry, l.askRepair)
	}
}
