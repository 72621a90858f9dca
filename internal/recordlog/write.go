package recordlog

import (
	"errors"
	"strconv"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/diskfile"
)

var errClosed = errors.New("recordlog: closed")

// appendBatch writes a batch to its file (a variable for the tests, which
// make the disk fail).
var appendBatch = (*diskfile.Prefilled).Write

// placed is where one op of a batch went.
type placed struct {
	op op
	at loc
}

// writeBatch appends ops as lines of the current file with one write and
// one fdatasync, then puts them into memory. It runs on the committer's
// goroutine, one batch at a time, so only it changes the index.
func (l *Log) writeBatch(ops []op) error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return errClosed
	}
	if l.cur == nil || l.cur.size >= segmentMax || l.now().Sub(l.cur.opened) >= scrubAfter {
		if err := l.startSegment(); err != nil {
			l.mu.Unlock()
			return err
		}
	}
	cur := l.cur
	buf := l.buf[:0]
	if len(l.repairs) > 0 {
		ops = append(l.repairOps(), ops...)
	}
	var done []placed
	for _, o := range ops {
		if o.nop {
			continue
		}
		var ver uint32
		switch {
		case o.move:
			if at, ok := l.index.get(o.id); !ok || at != o.from || touched(done, o.id) {
				// Written or deleted since the compaction read it, or
				// earlier in this very batch (which the index does not
				// show yet): the copy would put the old version back.
				continue
			}
			ver = o.from.ver
		case o.carry:
			ver = o.ver
		default:
			held, _ := l.index.get(o.id)
			ver = l.floor(o.id, held) + 1
			for _, p := range done { // a second write of one id in a batch
				if p.op.id == o.id && p.at.ver >= ver {
					ver = p.at.ver + 1
				}
			}
		}
		buf = append(buf, `{"id":"`...)
		buf = appendUUID(buf, o.id)
		buf = append(buf, `","v":`...)
		buf = strconv.AppendUint(buf, uint64(ver), 10)
		at := loc{seg: cur.seq, ver: ver}
		if o.doc == nil {
			buf = append(buf, `,"deleted":true}`+"\n"...)
		} else {
			buf = append(buf, `,"doc":`...)
			at.off, at.n = uint32(cur.size+int64(len(buf))), uint32(len(o.doc))
			buf = append(buf, o.doc...)
			buf = append(buf, "}\n"...)
		}
		done = append(done, placed{op: o, at: at})
	}
	l.buf = buf
	if len(done) == 0 {
		l.mu.Unlock()
		return nil
	}
	l.writing = cur
	l.mu.Unlock()

	// Readers go on meanwhile: nothing points past cur.size yet.
	err := appendBatch(cur.w, buf)
	if err == nil {
		err = cur.w.Sync()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writing = nil // nothing below unlocks before the batch is in memory
	l.written.Broadcast()
	if err != nil {
		// Take back what may have been written. Once that is done the
		// next batch may go on in the same file: its fill zeroes, and
		// syncs, the space after the content before any line relies on
		// it, so no torn line can stay between two good ones. Only when
		// the cut fails does the next batch start another file (a torn
		// line can then only end this one). A new file for every failed
		// batch left one open file more for each, and for each repair
		// retried every second, for as long as the disk failed.
		if derr := cur.w.Discard(cur.size); derr != nil && l.cur == cur {
			l.cur = nil
		}
		l.burn(done)
		if len(l.repairs) > 0 {
			l.askRepair()
		}
		return err
	}
	for _, p := range done {
		if l.burned != nil {
			l.settle(p)
		}
		old, had := l.index.get(p.op.id)
		if p.op.doc == nil {
			cur.tombs[p.op.id] = p.at.ver
			if p.op.carry {
				continue
			}
			if had {
				l.superseded(old)
				l.index.del(p.op.id)
			}
			continue
		}
		if had {
			l.superseded(old)
		}
		l.index.set(p.op.id, p.at)
		cur.live += p.at.lineLen()
	}
	cur.size += int64(len(buf))
	if len(l.buf) > 1<<20 {
		l.buf = nil // a batch of large records: do not keep its buffer
	}
	l.maybeCompact()
	return nil
}

// touched reports whether an op of done is for id.
func touched(done []placed, id uuid.UUID) bool {
	for _, p := range done {
		if p.op.id == id {
			return true
		}
	}
	return false
}

// superseded takes the line at old out of its file's live bytes, and
// notes when the file first held a line no longer current: every version
// of a deleted record is such a line, wherever it is. l.mu is held.
func (l *Log) superseded(old loc) {
	s := l.segs[old.seg]
	s.live -= old.lineLen()
	if s.garbageAt.IsZero() {
		s.garbageAt = l.now()
	}
}

// startSegment creates the next file, durably (its directory entry synced
// before any commit relies on it), and gives the zeros of the one before
// back. Its batches go into zeros filled ahead of them
// (diskfile.Prefilled), so a batch's fdatasync writes no size. l.mu is
// held.
func (l *Log) startSegment() error {
	seq := l.next
	w, err := diskfile.CreatePrefilled(l.path(seq))
	if err != nil {
		return err
	}
	l.finishCurrent()
	s := &segment{seq: seq, f: w.File(), w: w, tombs: make(map[uuid.UUID]uint32), opened: l.now()}
	l.segs[seq], l.cur, l.next = s, s, seq+1
	return nil
}

// finishCurrent gives the zeros ahead of the current file's lines back:
// no batch goes to it any more. l.mu is held.
func (l *Log) finishCurrent() {
	if l.cur != nil && l.cur.w != nil {
		_ = l.cur.w.Finish()
		l.cur.w = nil
	}
}

// appendUUID appends id in its canonical form, without allocating.
func appendUUID(b []byte, id uuid.UUID) []byte {
	var s [36]byte
	hexdigits := "0123456789abcdef"
	j := 0
	for i, c := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			s[j] = '-'
			j++
		}
		s[j], s[j+1] = hexdigits[c>>4], hexdigits[c&0xf]
		j += 2
	}
	return append(b, s[:]...)
}
