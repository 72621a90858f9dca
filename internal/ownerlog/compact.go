package ownerlog

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"go.uber.org/zap"
)

// maybeCompact starts a compaction in the background once compactAfter
// documents it would merge have gathered, unless one is running.
func (l *Log) maybeCompact() {
	now := time.Now()
	l.docsMu.Lock()
	n := 0
	for key, st := range l.docs {
		if l.mergeable(key, st, now) {
			n++
		}
	}
	l.docsMu.Unlock()
	if n < compactAfter {
		return
	}
	l.compactMu.Lock()
	if l.compacting {
		l.compactMu.Unlock()
		return
	}
	l.compacting = true
	l.compactions.Add(1)
	l.compactMu.Unlock()
	go func() {
		defer l.compactions.Done()
		defer func() {
			l.compactMu.Lock()
			l.compacting = false
			l.compactMu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(l.background, 4*writeTimeout)
		defer cancel()
		if err := l.compact(ctx); err != nil && l.background.Err() == nil {
			l.logger.Warn("compacting the record owners failed; the documents stay as they are", zap.String("dir", l.dir), zap.Error(err))
		}
	}()
}

// compact merges every batch document, and every segment less than half
// full, into as few segments as hold them, then deletes what it merged.
// The segments are durable before anything is deleted, so an interruption
// leaves entries held twice, never lost; an entry forgotten within the
// merged documents is dropped, its tombstone kept (another document may
// hold the entry too), and so is an entry past the retention. A tombstone
// past tombstoneCutoff is dropped: no document that could hold its entry
// is left. (Tombstones keep their own times through compactions; a
// segment's name is when it was written.)
func (l *Log) compact(ctx context.Context) error {
	keys, err := l.list(ctx)
	if err != nil {
		return err
	}
	var merged document
	var tombstones []tombstone
	var picked []string
	now := time.Now()
	for _, key := range keys {
		st, _ := l.docState(key)
		if !l.mergeable(key, st, now) {
			continue
		}
		doc, err := l.read(ctx, key)
		if errors.Is(err, fs.ErrNotExist) {
			continue // merged by another instance meanwhile
		}
		if err != nil {
			return err
		}
		merged.Owners = append(merged.Owners, doc.Owners...)
		tombstones = append(tombstones, doc.tombstones(docTime(key))...)
		picked = append(picked, key)
	}
	if len(picked) < 2 {
		return nil
	}
	cutoff := l.idx.cutoff(now)
	owners := unexpired(dedupe(merged.Owners, tombstones), cutoff)
	kept := liveTombstones(tombstones, l.idx.tombstoneCutoff(now))
	for first := true; first || len(owners) > 0; first = false {
		n := min(len(owners), segmentSize)
		seg := document{Owners: owners[:n:n]}
		if first {
			seg = seg.withTombstones(kept)
		}
		owners = owners[n:]
		if err := l.store(ctx, l.name('s'), seg); err != nil {
			return err
		}
	}
	for _, key := range picked {
		if err := l.storage.Delete(ctx, key); err != nil && !errors.Is(err, fs.ErrNotExist) {
			l.logger.Warn("deleting a compacted owners document failed; its entries are held twice", zap.String("key", key), zap.Error(err))
			continue
		}
		l.forgetDoc(key)
	}
	return nil
}

// dedupe returns owners without repeated ids and without forgotten ones.
func dedupe(owners []Entry, forgotten []tombstone) []Entry {
	skip := make(map[string]struct{}, len(owners)+len(forgotten))
	for _, t := range forgotten {
		skip[t.id] = struct{}{}
	}
	out := owners[:0]
	for _, e := range owners {
		if _, seen := skip[e.ID]; seen {
			continue
		}
		skip[e.ID] = struct{}{}
		out = append(out, e)
	}
	return out
}

// liveTombstones returns ts without repeated ids (the latest time kept)
// and without those dated before cutoff (Unix seconds; 0 keeps all).
func liveTombstones(ts []tombstone, cutoff uint32) []tombstone {
	latest := make(map[string]int, len(ts))
	var out []tombstone
	for _, t := range ts {
		if t.at < cutoff {
			continue
		}
		if i, seen := latest[t.id]; seen {
			out[i].at = max(out[i].at, t.at)
			continue
		}
		latest[t.id] = len(out)
		out = append(out, t)
	}
	return out
}

// unexpired returns owners without those created before cutoff (Unix
// seconds; 0 keeps all): a segment is named for the time it is written,
// and is deleted only once that time is past the retention, so an expired
// entry merged into it would be stored again for as long.
func unexpired(owners []Entry, cutoff uint32) []Entry {
	if cutoff == 0 {
		return owners
	}
	out := owners[:0]
	for _, e := range owners {
		if !(owner{created: createdSeconds(e.CreatedAt)}).expired(cutoff) {
			out = append(out, e)
		}
	}
	return out
}

// mergeable reports whether compaction merges key: every batch; a segment
// or an append file less than half full, an append file only once no
// process can append to it any more (finished).
func (l *Log) mergeable(key string, st docState, now time.Time) bool {
	switch kindOf(key) {
	case 'b':
		return true
	case 'a':
		if !finished(key, now) {
			return false
		}
	}
	return st.entries < segmentSize/2
}
