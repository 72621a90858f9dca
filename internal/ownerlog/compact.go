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
// hold the entry too), and so is an entry past the retention; of two
// owners of one id, the one every reader keeps (index.put). A tombstone
// past tombstoneCutoff is dropped: no document that could hold its entry
// is left. (Tombstones keep their own times through compactions; a
// segment's name is when it was written.)
//
// A segment holds up to segmentSize entries, owners and tombstones alike:
// without a retention tombstones are kept for good, and one segment
// holding them all would grow past what a reading accepts (readLimit).
//
// The listing may show documents written since this instance last read
// the directory: their entries go into memory here, since the segments
// are taken as read and those documents deleted, so no later reading
// would find them.
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
		if errors.Is(err, errUnreadable) {
			l.skip(key, err) // left where it is
			continue
		}
		if err != nil {
			return err
		}
		ts := doc.tombstones(docTime(key))
		if !l.readAll(key) {
			l.idx.add(doc.Owners, ts)
		}
		merged.Owners = append(merged.Owners, doc.Owners...)
		tombstones = append(tombstones, ts...)
		picked = append(picked, key)
	}
	if len(picked) < 2 {
		return nil
	}
	cutoff := l.idx.cutoff(now)
	owners := unexpired(dedupe(merged.Owners, tombstones), cutoff)
	kept := liveTombstones(tombstones, l.idx.tombstoneCutoff(now))
	for first := true; first || len(owners) > 0 || len(kept) > 0; first = false {
		n := min(len(owners), segmentSize)
		m := min(len(kept), segmentSize-n)
		seg := document{Owners: owners[:n:n]}.withTombstones(kept[:m])
		owners, kept = owners[n:], kept[m:]
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

// readAll reports whether every entry of the document key is in memory:
// a batch or segment this instance has read or written, an append file of
// its own. Another process's append file may have lines completed since
// it was read.
func (l *Log) readAll(key string) bool {
	if kindOf(key) == 'a' {
		return l.appender != nil && l.appender.own(key)
	}
	return l.known(key)
}

// dedupe returns owners without forgotten ids and with one owner per id:
// the one index.put keeps whatever the order (an earlier creation by
// another org wins), so that a reader of the segment keeps the owner a
// reader of the merged documents did.
func dedupe(owners []Entry, forgotten []tombstone) []Entry {
	at := make(map[string]int, len(owners)+len(forgotten)) // -1: forgotten
	for _, t := range forgotten {
		at[t.id] = -1
	}
	out := owners[:0]
	for _, e := range owners {
		i, seen := at[e.ID]
		switch {
		case !seen:
			at[e.ID] = len(out)
			out = append(out, e)
		case i >= 0 && before(e, out[i]):
			out[i] = e
		}
	}
	return out
}

// before reports whether e, an owner of held's id, wins over it: as
// owner.before, another org's owner created earlier.
func before(e, held Entry) bool {
	ec, hc := createdSeconds(e.CreatedAt), createdSeconds(held.CreatedAt)
	return e.OrgID != held.OrgID && ec != 0 && hc != 0 && ec < hc
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
// process can append to it any more (finished); never a document that
// cannot be read.
func (l *Log) mergeable(key string, st docState, now time.Time) bool {
	if st.unreadable {
		return false
	}
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
