package ownerlog

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"go.uber.org/zap"
)

// MinRetention is the shortest retention a holder may ask for. Deleting a
// document relies on it: the append file a process may still write to was
// started less than rotateAfter ago, so it is never old enough to go.
const MinRetention = 2 * time.Hour

// expireEvery is how often the records past the retention are removed
// from memory and their documents from storage; the first pass runs
// expireFirst after the Log opens.
const (
	expireEvery = 10 * time.Minute
	expireFirst = time.Minute
)

// hold records one holder's retention (0: keep every record) and applies
// the retention of all holders: the longest, and none at all while any
// holder keeps every record. Holders of one storage share one Log, so a
// record stays as long as any of them wants it.
func (l *Log) hold(retention time.Duration) {
	l.holdsMu.Lock()
	defer l.holdsMu.Unlock()
	l.holds[retention]++
	l.applyRetention()
}

// unhold drops one holder's retention.
func (l *Log) unhold(retention time.Duration) {
	l.holdsMu.Lock()
	defer l.holdsMu.Unlock()
	if l.holds[retention]--; l.holds[retention] <= 0 {
		delete(l.holds, retention)
	}
	l.applyRetention()
}

// applyRetention sets the index's retention from the holds; the caller
// holds holdsMu.
func (l *Log) applyRetention() {
	var longest time.Duration
	for r := range l.holds {
		if r <= 0 {
			longest = 0
			break
		}
		longest = max(longest, r)
	}
	l.idx.retention.Store(int64(longest / time.Second))
}

// Retention returns the retention in force (0: every record is kept).
func (l *Log) Retention() time.Duration {
	return time.Duration(l.idx.retention.Load()) * time.Second
}

// expireLoop removes what has expired every expireEvery until the Log
// ends.
func (l *Log) expireLoop() {
	defer l.expiring.Done()
	t := time.NewTimer(expireFirst)
	defer t.Stop()
	for {
		select {
		case <-l.background.Done():
			return
		case <-t.C:
		}
		records, docs, err := l.Expire(l.background, time.Now())
		switch {
		case err != nil && l.background.Err() == nil:
			l.logger.Warn("removing expired record owners from storage failed; the next pass tries again", zap.String("dir", l.dir), zap.Error(err))
		case records > 0 || docs > 0:
			l.logger.Info("record owners past their retention removed", zap.String("dir", l.dir),
				zap.Duration("retention", l.Retention()), zap.Int("records", records), zap.Int("documents", docs))
		}
		t.Reset(expireEvery)
	}
}

// Expire removes, at now, the records created longer ago than the
// retention: from memory, and from storage every document whose records
// were all created before then (the time in a document's name is at or
// after its records' creation; an append file may take records for
// rotateAfter after its name's time). A tombstone deleted with its
// document is harmless: the record it forgot is older still, so expired.
// Instances sharing the storage may delete the same documents. It returns
// the records removed from memory and the documents deleted.
func (l *Log) Expire(ctx context.Context, now time.Time) (records, docs int, err error) {
	retention := l.Retention()
	if retention <= 0 {
		return 0, 0, nil
	}
	records = l.idx.expire(now)
	l.expired.Add(uint64(records))
	keys, err := l.list(ctx)
	if err != nil {
		return records, 0, err
	}
	cutoff := now.Add(-retention)
	for _, key := range keys {
		last := stampOf(key)
		if last.IsZero() {
			continue // a name without a time: nothing tells its age
		}
		if kindOf(key) == 'a' {
			last = last.Add(appendQuiet)
		}
		if !last.Before(cutoff) || (l.appender != nil && l.appender.writing(key)) {
			continue // the file commits go to is never old (MinRetention); whatever the clock says, it stays
		}
		if err := l.storage.Delete(ctx, key); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return records, docs, err
		}
		l.forgetDoc(key)
		docs++
	}
	return records, docs, nil
}

// forgetDoc drops what is known of a deleted document.
func (l *Log) forgetDoc(key string) {
	l.docsMu.Lock()
	delete(l.docs, key)
	l.docsMu.Unlock()
	if l.appender != nil {
		l.appender.forget(key)
	}
}
