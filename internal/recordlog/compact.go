package recordlog

import (
	"errors"
	"os"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"
)

// maybeCompact starts compacting one finished file when it is mostly
// superseded, small, or has held a superseded line for scrubAfter, unless
// a compaction runs. l.mu is held.
func (l *Log) maybeCompact() {
	if l.busy || l.closed || l.now().Before(l.retryAt) {
		return
	}
	var victim *segment
	removals := false
	for _, s := range l.segs {
		if s.removing {
			removals = true // retried first by the compaction started here
			continue
		}
		if s == l.cur || s == l.writing {
			continue
		}
		// A small file is folded in whatever it holds: each start and each
		// failed write leaves one behind, and their number should stay
		// small. A file holding a line superseded or deleted scrubAfter
		// ago is compacted too, so that every version of a deleted record
		// leaves the disk (which lines were deletions is not tracked).
		scrub := !s.garbageAt.IsZero() && l.now().Sub(s.garbageAt) >= scrubAfter
		if s.live*2 > s.size && s.size >= segmentMax/16 && !scrub {
			continue
		}
		if victim == nil || s.seq < victim.seq {
			victim = s // oldest first: its deletions may then be dropped
		}
	}
	if victim == nil && !removals {
		return
	}
	l.busy = true
	l.compacting.Add(1)
	go l.compact(victim)
}

// compact copies what is current in s to the end of the journal, then
// removes s. Its deletions are copied too while an older file remains,
// which may hold what they delete: a file whose removal is not yet
// durable counts, as it is still among l.segs. A failure leaves s in place
// (its lines are still valid; a copy made meanwhile is the same version)
// for a later attempt. The removals that failed before are retried first
// (s is nil when there is only that to do): each file then durably gone
// lets the deletions of newer ones be dropped.
func (l *Log) compact(s *segment) {
	defer func() {
		l.mu.Lock()
		l.busy = false
		l.mu.Unlock()
		l.compacting.Done()
	}()
	l.retryRemovals()
	if s == nil {
		return
	}
	l.mu.RLock()
	var moves []op
	l.index.each(func(id uuid.UUID, at loc) {
		if at.seg == s.seq {
			moves = append(moves, op{id: id, move: true, from: at})
		}
	})
	older := false
	for seq := range l.segs {
		older = older || seq < s.seq
	}
	var carries []op
	if older {
		for id, ver := range s.tombs {
			carries = append(carries, op{id: id, carry: true, ver: ver})
		}
	}
	l.mu.RUnlock()

	const chunk = maxBatch
	for i := 0; i < len(moves); i += chunk {
		part := moves[i:min(i+chunk, len(moves))]
		for j := range part {
			doc := make([]byte, part[j].from.n)
			if _, err := s.f.ReadAt(doc, int64(part[j].from.off)); err != nil {
				l.compactFailed(s, err)
				return
			}
			part[j].doc = doc
		}
		if err := l.commit.SubmitAll(part); err != nil {
			l.compactFailed(s, err)
			return
		}
		clear(part) // the documents copied
	}
	if err := l.commit.SubmitAll(carries); err != nil {
		l.compactFailed(s, err)
		return
	}

	l.mu.Lock()
	if s.live > 0 || l.closed {
		l.mu.Unlock()
		return
	}
	// Nothing points into s any more (writes go to the current file), so
	// it is closed; it stays known until its removal is durable.
	s.removing = true
	_ = s.f.Close()
	l.mu.Unlock()
	l.remove(s)
}

// remove removes the file of s, compacted and closed, and forgets s only
// once the removal is durable: a compaction drops the deletions of a file
// once no older file remains, and a file that is still on disk, or came
// back after a crash, would bring back what they deleted (and a floor
// that forgot its deletions would let a write of a deleted id go below
// them). On a failure s stays among l.segs, marked removing, and a later
// compaction (after retryAt, as for a failed one) tries again.
func (l *Log) remove(s *segment) {
	err := os.Remove(s.f.Name())
	if errors.Is(err, os.ErrNotExist) {
		err = nil // removed by an attempt whose directory sync failed
	}
	if err == nil {
		err = syncDir(l.dir)
	}
	l.mu.Lock()
	if err == nil {
		delete(l.segs, s.seq)
	} else {
		l.retryAt = l.now().Add(time.Minute)
	}
	l.mu.Unlock()
	if err != nil {
		l.logger.Warn("record journal: removing a compacted file failed; it is kept, with the deletions it needs, for a later attempt",
			zap.String("file", s.f.Name()), zap.Error(err))
	}
}

// retryRemovals tries again to remove the compacted files whose removal
// failed.
func (l *Log) retryRemovals() {
	l.mu.RLock()
	var again []*segment
	for _, s := range l.segs {
		if s.removing {
			again = append(again, s)
		}
	}
	l.mu.RUnlock()
	for _, s := range again {
		l.remove(s)
	}
}

func (l *Log) compactFailed(s *segment, err error) {
	if err == errClosed {
		return
	}
	l.mu.Lock()
	l.retryAt = l.now().Add(time.Minute)
	l.mu.Unlock()
	l.logger.Warn("record journal: compaction failed; the file stays for a later one",
		zap.String("file", s.f.Name()), zap.Error(err))
}
